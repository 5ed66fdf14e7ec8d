import { createRequire } from 'node:module';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { type PairDecide, type PairTake, type RateDecision, type RateLimitRule, TAKE_PAIR } from '../../policy/rate-limit.js';
import type { CreateLimiter, StateFailurePolicy } from '../index.js';
import type { RedisConnection } from './connection.js';
import { TakeBatcher } from './take-batch.js';

type Flexible = typeof import('rate-limiter-flexible');

/** One batcher per ioredis client: every limiter on a connection shares its turn's command. */
const batchers = new WeakMap<object, TakeBatcher>();

interface Window {
  points: number;
  ms: number;
  insurance?: RateLimiterAbstract;
}

/**
 * Rate limiters in Redis (rate-limiter-flexible's RateLimiterRedis on the
 * shared ioredis client): a rule of N calls is N across every instance, not N
 * per instance. Keys: `<prefix>rl:<rule>:<key>`, where the key is a tool name,
 * a caller's key or a client address; never a credential.
 *
 * A call's two points (the caller's, the tool's) are taken by one Lua script
 * (take-batch.ts, EVALSHA with an EVAL fallback), with the points of every other call
 * asking in the same event-loop turn: one Redis command per turn, not per call.
 *
 * While Redis cannot be reached, a limiter rejects with an error (not a
 * decision), and the call that asked is refused ('refuse'); under 'open' each
 * instance counts in its own memory instead (rate-limiter-flexible's
 * insuranceLimiter), so limits hold per instance until Redis is back.
 */
export function redisLimiters(redis: RedisConnection, onFailure: StateFailurePolicy): CreateLimiter {
  const flexible = createRequire(import.meta.url)('rate-limiter-flexible') as Flexible;
  const windows = new WeakMap<RateLimiterAbstract, Window>();
  let batcher = batchers.get(redis.client);
  if (!batcher) batchers.set(redis.client, (batcher = new TakeBatcher(redis)));
  const batch = batcher;

  const takePair = (
    caller: RateLimiterAbstract,
    callerKey: string,
    tool: { limiter: RateLimiterAbstract; key: string } | undefined,
    decide: PairDecide,
  ): ReturnType<PairTake> => {
    const callerWindow = windows.get(caller)!;
    const toolWindow = tool && windows.get(tool.limiter);
    if (tool && !toolWindow) return undefined; // not one of ours: the caller takes the two points apart
    if (redis.client.status !== 'ready') return onRedisFailure(new Error('Redis connection is not ready'));
    const request = {
      callerKey: caller.getKey(callerKey),
      callerPoints: callerWindow.points,
      callerMs: callerWindow.ms,
      toolKey: tool && toolWindow ? tool.limiter.getKey(tool.key) : undefined,
      toolPoints: toolWindow?.points,
      toolMs: toolWindow?.ms,
    };
    return batch.take(request, decide, onRedisFailure);

    // As RateLimiterRedis does: under 'open' the points go to each limiter's in-memory insurance; under 'refuse' the error stands.
    async function onRedisFailure(err: unknown): Promise<RateDecision> {
      if (!callerWindow.insurance) throw err;
      const callerMs = await insuranceTake(callerWindow.insurance, callerKey);
      if (callerMs !== undefined || !tool || !toolWindow?.insurance) return decide(callerMs, undefined);
      return decide(undefined, await insuranceTake(toolWindow.insurance, tool.key));
    }
  };

  const insuranceTake = async (insurance: RateLimiterAbstract, key: string): Promise<number | undefined> => {
    try {
      await insurance.consume(key, 1);
      return undefined;
    } catch (res) {
      if (res instanceof flexible.RateLimiterRes) return res.msBeforeNext;
      throw res;
    }
  };

  return (rule: RateLimitRule, keyPrefix: string): RateLimiterAbstract => {
    const options = { points: rule.points, duration: rule.durationSeconds };
    const insurance = onFailure === 'open' ? new flexible.RateLimiterMemory({ ...options, keyPrefix }) : undefined;
    const limiter = new flexible.RateLimiterRedis({
      ...options,
      storeClient: redis.client,
      keyPrefix: redis.key(`rl:${keyPrefix}`),
      // Down means down at once, not a wait for a command timeout.
      rejectIfRedisNotReady: true,
      ...(insurance ? { insuranceLimiter: insurance } : {}),
    });
    // RateLimiterRedis's window lasts whole seconds; one shorter than a second is left to it.
    const ms = Math.floor(rule.durationSeconds) * 1000;
    if (ms > 0) {
      windows.set(limiter, { points: rule.points, ms, insurance });
      Object.defineProperty(limiter, TAKE_PAIR, { value: ((key, tool, decide) => takePair(limiter, key, tool, decide)) satisfies PairTake });
    }
    return limiter;
  };
}
