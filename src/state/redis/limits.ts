import { loadFlexible, rateLimitStoreFrom } from '../../policy/flexible-store.js';
import type {
  CreateRateLimitStore,
  RateLimitPairDecide,
  RateLimitPairTool,
  RateLimitStore,
  RateLimitTake,
  RateLimitWindow,
} from '../../policy/rate-limit-store.js';
import type { StateFailurePolicy } from '../index.js';
import type { RedisConnection } from './connection.js';
import { TakeBatcher } from './take-batch.js';

/** One batcher per ioredis client: every store on a connection shares its turn's command. */
const batchers = new WeakMap<object, TakeBatcher>();

/**
 * Rate-limit stores in Redis: a rule of N calls is N across every instance, not N per
 * instance. Keys: `<prefix>rl:<rule>:<key>`, where the key is a tool name, a caller's key or a
 * client address; never a credential. They are rate-limiter-flexible's RateLimiterRedis keys and
 * counts, and a single point (the throttle, a rule without a per-caller limit) is taken by a
 * RateLimiterRedis on the shared ioredis client.
 *
 * A call's two points (the caller's, the tool's) are taken by `takePair`: one Lua script
 * (take-batch.ts, EVALSHA with an EVAL fallback), with the points of every other call asking in
 * the same event-loop turn: one Redis command per turn, not per call.
 *
 * While Redis cannot be reached, a take rejects with an error (not a decision), and the call
 * that asked is refused ('refuse'); under 'open' each instance counts in its own memory instead
 * (rate-limiter-flexible's insuranceLimiter), so limits hold per instance until Redis is back.
 */
export function redisLimiters(redis: RedisConnection, onFailure: StateFailurePolicy): CreateRateLimitStore {
  const flexible = loadFlexible();
  let batcher = batchers.get(redis.client);
  if (!batcher) batchers.set(redis.client, (batcher = new TakeBatcher(redis)));
  const batch = batcher;

  return (rule, name) => {
    const options = { points: rule.points, duration: rule.durationSeconds };
    const insurance = onFailure === 'open' ? new flexible.RateLimiterMemory({ ...options, keyPrefix: name }) : undefined;
    const keyPrefix = redis.key(`rl:${name}`);
    const limiter = new flexible.RateLimiterRedis({
      ...options,
      storeClient: redis.client,
      keyPrefix,
      // Down means down at once, not a wait for a command timeout.
      rejectIfRedisNotReady: true,
      ...(insurance ? { insuranceLimiter: insurance } : {}),
    });
    return new RedisRateLimitStore(redis, batch, {
      // RateLimiterRedis's window lasts whole seconds; one shorter than a second is left to it (no paired take).
      ms: Math.floor(rule.durationSeconds) * 1000,
      points: rule.points,
      // As RateLimiterRedis's getKey: `<keyPrefix>:<key>`.
      keyPrefix: `${keyPrefix}:`,
      single: rateLimitStoreFrom(limiter),
      insurance: insurance && rateLimitStoreFrom(insurance),
    });
  };
}

interface Rule {
  /** A new window's length in ms; 0: shorter than a second, no paired take. */
  ms: number;
  points: number;
  /** What a key is prefixed with in Redis. */
  keyPrefix: string;
  /** RateLimiterRedis, for points taken one at a time and for reading a window. */
  single: RateLimitStore;
  /** Under 'open': this instance's own count while Redis is away. */
  insurance: RateLimitStore | undefined;
}

/** One rule's counts in Redis. */
class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly batch: TakeBatcher,
    private readonly rule: Rule,
  ) {}

  take(key: string): Promise<RateLimitTake> {
    return this.rule.single.take(key) as Promise<RateLimitTake>;
  }

  peek(key: string): Promise<RateLimitWindow | undefined> {
    return this.rule.single.peek(key) as Promise<RateLimitWindow | undefined>;
  }

  refund(key: string, outcome: RateLimitTake): void {
    this.rule.single.refund!(key, outcome);
  }

  /** Both points in the turn's script, when the tool is counted on the same connection (undefined otherwise: taken apart). */
  takePair<T>(key: string, tool: RateLimitPairTool | undefined, decide: RateLimitPairDecide<T>): Promise<T> | undefined {
    const caller = this.rule;
    const toolStore = tool?.store;
    if (caller.ms === 0) return undefined;
    if (tool && !(toolStore instanceof RedisRateLimitStore && toolStore.batch === this.batch && toolStore.rule.ms > 0)) return undefined;
    const toolRule = (toolStore as RedisRateLimitStore | undefined)?.rule;
    if (this.redis.client.status !== 'ready') return onRedisFailure(new Error('Redis connection is not ready'));
    const request = {
      callerKey: caller.keyPrefix + key,
      callerPoints: caller.points,
      callerMs: caller.ms,
      toolKey: tool && toolRule ? toolRule.keyPrefix + tool.key : undefined,
      toolPoints: toolRule?.points,
      toolMs: toolRule?.ms,
    };
    return this.batch.take(request, decide, onRedisFailure);

    // As RateLimiterRedis does: under 'open' the points go to each rule's in-memory insurance; under 'refuse' the error stands.
    async function onRedisFailure(err: unknown): Promise<T> {
      if (!caller.insurance) throw err;
      const callerMs = await caller.insurance.take(key);
      if (callerMs !== undefined || !tool || !toolRule?.insurance) return decide(callerMs, undefined);
      return decide(undefined, await toolRule.insurance.take(tool.key));
    }
  }
}
