import type { CreateLimiter } from '../policy/flexible-store.js';
import type { ResultStore } from './result-store.js';

/**
 * Shared state: what several instances of one server behind a load balancer
 * must agree on (docs/scale-out.md). Each piece sits behind an async
 * interface with an in-process default; `redis` fills them all from one Redis.
 */

/** When Redis cannot be reached: 'refuse' the calls that need it (default), or serve on with each instance's own state ('open'). */
export type StateFailurePolicy = 'refuse' | 'open';

/**
 * Builds the store for one rule (a rate limit, the failed-authentication throttle); `keyPrefix`
 * names the rule. It returns a RateLimitStore, or a rate-limiter-flexible limiter, adapted into one.
 */
export type { CreateLimiter } from '../policy/flexible-store.js';

export interface StateOptions {
  /**
   * A redis:// or rediss:// URL: rate limits, the failed-authentication
   * throttle and stored results (and, where supported, events, sessions and
   * tasks) are kept there, shared by every instance given the same URL and prefix.
   */
  redis?: string;
  /** Put before every key (default `toolwright:`): deployments sharing one Redis keep apart. */
  keyPrefix?: string;
  /** When Redis cannot be reached (default 'refuse'); 'open' is the operator's explicit choice (docs/scale-out.md). */
  onFailure?: StateFailurePolicy;
  /** Where large results are kept, instead of the default (memory, or Redis with `redis`). */
  results?: ResultStore;
  /**
   * Builds every rate-limit store (per caller, per tool, failed authentications), instead of the
   * default (memory, or Redis with `redis`): a RateLimitStore, or a rate-limiter-flexible limiter.
   */
  createLimiter?: CreateLimiter;
}

export {
  StateUnavailableError,
  redisConnection,
  describeRedisUrl,
  checkRedisUrl,
  type RedisConnection,
  type RedisConnectionOptions,
} from './redis/connection.js';
