import { createRequire } from 'node:module';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitRule } from '../../policy/rate-limit.js';
import type { CreateLimiter, StateFailurePolicy } from '../index.js';
import type { RedisConnection } from './connection.js';

type Flexible = typeof import('rate-limiter-flexible');

/**
 * Rate limiters in Redis (rate-limiter-flexible's RateLimiterRedis on the
 * shared ioredis client): a rule of N calls is N across every instance, not N
 * per instance. Keys: `<prefix>rl:<rule>:<key>`, where the key is a tool name,
 * a caller's key or a client address; never a credential.
 *
 * While Redis cannot be reached, a limiter rejects with an error (not a
 * decision), and the call that asked is refused ('refuse'); under 'open' each
 * instance counts in its own memory instead (rate-limiter-flexible's
 * insuranceLimiter), so limits hold per instance until Redis is back.
 */
export function redisLimiters(redis: RedisConnection, onFailure: StateFailurePolicy): CreateLimiter {
  const flexible = createRequire(import.meta.url)('rate-limiter-flexible') as Flexible;
  return (rule: RateLimitRule, keyPrefix: string): RateLimiterAbstract => {
    const options = { points: rule.points, duration: rule.durationSeconds };
    return new flexible.RateLimiterRedis({
      ...options,
      storeClient: redis.client,
      keyPrefix: redis.key(`rl:${keyPrefix}`),
      // Down means down at once, not a wait for a command timeout.
      rejectIfRedisNotReady: true,
      ...(onFailure === 'open' ? { insuranceLimiter: new flexible.RateLimiterMemory({ ...options, keyPrefix }) } : {}),
    });
  };
}
