import { createRequire } from 'node:module';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { type PairTake, type RateLimitRule, TAKE_PAIR } from '../../policy/rate-limit.js';
import type { CreateLimiter, StateFailurePolicy } from '../index.js';
import type { RedisConnection } from './connection.js';

type Flexible = typeof import('rate-limiter-flexible');

/**
 * Both fixed windows of a call in one command: the caller's key (KEYS[1]) and, when given,
 * the tool's (KEYS[2]). A window starts with its first point (INCR, then PEXPIRE) and ends
 * with its expiry, as rate-limiter-flexible's own script counts them (same keys, same integer
 * counts), so either may count a key the other counted. The tool's point is taken only when
 * the caller is within its limit: a caller over its limit spends none of the tool's budget.
 * Returns {caller's count, its ms left, tool's count (0: not taken), its ms left}.
 */
const TAKE_BOTH_LUA = `
local function take(key, ms)
  local count = redis.call('incr', key)
  local ttl = -1
  if count > 1 then ttl = redis.call('pttl', key) end
  if ttl < 0 then
    redis.call('pexpire', key, ms)
    ttl = ms
  end
  return count, ttl
end
local callerCount, callerTtl = take(KEYS[1], tonumber(ARGV[2]))
if callerCount > tonumber(ARGV[1]) or #KEYS < 2 then return {callerCount, callerTtl, 0, 0} end
local toolCount, toolTtl = take(KEYS[2], tonumber(ARGV[4]))
return {callerCount, callerTtl, toolCount, toolTtl}
`;

interface Window {
  points: number;
  ms: number;
  insurance?: RateLimiterAbstract;
}

type TakeBoth = (numberOfKeys: number, ...keysThenArgs: (string | number)[]) => Promise<[number, number, number, number]>;

/**
 * Rate limiters in Redis (rate-limiter-flexible's RateLimiterRedis on the
 * shared ioredis client): a rule of N calls is N across every instance, not N
 * per instance. Keys: `<prefix>rl:<rule>:<key>`, where the key is a tool name,
 * a caller's key or a client address; never a credential.
 *
 * A call's two points (the caller's, the tool's) are taken by one Lua script
 * (TAKE_BOTH_LUA, EVALSHA with an EVAL fallback): one Redis command per call.
 *
 * While Redis cannot be reached, a limiter rejects with an error (not a
 * decision), and the call that asked is refused ('refuse'); under 'open' each
 * instance counts in its own memory instead (rate-limiter-flexible's
 * insuranceLimiter), so limits hold per instance until Redis is back.
 */
export function redisLimiters(redis: RedisConnection, onFailure: StateFailurePolicy): CreateLimiter {
  const flexible = createRequire(import.meta.url)('rate-limiter-flexible') as Flexible;
  const windows = new WeakMap<RateLimiterAbstract, Window>();
  const client = redis.client as unknown as { toolwrightTakeBoth?: TakeBoth; defineCommand(name: string, spec: { lua: string }): void };
  if (!client.toolwrightTakeBoth) client.defineCommand('toolwrightTakeBoth', { lua: TAKE_BOTH_LUA });
  const takeBoth = client.toolwrightTakeBoth as TakeBoth;

  const takePair = (caller: RateLimiterAbstract, callerKey: string, tool?: { limiter: RateLimiterAbstract; key: string }): ReturnType<PairTake> => {
    const callerWindow = windows.get(caller)!;
    const toolWindow = tool && windows.get(tool.limiter);
    if (tool && !toolWindow) return undefined; // not one of ours: the caller takes the two points apart
    if (redis.client.status !== 'ready') return onRedisFailure(new Error('Redis connection is not ready'));
    const keys = tool ? [caller.getKey(callerKey), tool.limiter.getKey(tool.key)] : [caller.getKey(callerKey)];
    const args = [callerWindow.points, callerWindow.ms, toolWindow?.points ?? 0, toolWindow?.ms ?? 0];
    return takeBoth.call(redis.client, keys.length, ...keys, ...args).then(([callerCount, callerTtl, toolCount, toolTtl]) => {
      const callerMs = callerCount > callerWindow.points ? callerTtl : undefined;
      const toolMs = toolWindow && toolCount > toolWindow.points ? toolTtl : undefined;
      return [callerMs, toolMs] as [number | undefined, number | undefined];
    }, onRedisFailure);

    // As RateLimiterRedis does: under 'open' the points go to each limiter's in-memory insurance; under 'refuse' the error stands.
    async function onRedisFailure(err: unknown): Promise<[number | undefined, number | undefined]> {
      if (!callerWindow.insurance) throw err;
      const callerMs = await insuranceTake(callerWindow.insurance, callerKey);
      if (callerMs !== undefined || !tool || !toolWindow?.insurance) return [callerMs, undefined];
      return [undefined, await insuranceTake(toolWindow.insurance, tool.key)];
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
      Object.defineProperty(limiter, TAKE_PAIR, { value: ((key, tool) => takePair(limiter, key, tool)) satisfies PairTake });
    }
    return limiter;
  };
}
