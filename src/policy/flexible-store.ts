import { requireOptional } from '../runtime/optional-package.js';
import type { CreateRateLimitStore, RateLimitRule, RateLimitStore } from './rate-limit-store.js';

/*
 * The one module that knows rate-limiter-flexible: a limiter of that library, given through
 * `createLimiter` as the documented options always allowed, becomes a RateLimitStore here, and
 * the Redis state loads it through here for the takes it leaves to RateLimiterRedis.
 */

type Flexible = typeof import('rate-limiter-flexible');

/**
 * What toolwright uses of a rate-limiter-flexible limiter (RateLimiterRedis, RateLimiterMemory,
 * RateLimiterPostgres, …): described, not imported, so that toolwright's own types do not carry
 * the library's.
 */
export interface FlexibleLimiter {
  consume(key: string, points?: number): Promise<unknown>;
  get(key: string): Promise<{ consumedPoints: number; msBeforeNext: number } | null>;
  reward(key: string, points?: number): Promise<unknown>;
}

/**
 * Builds the limiter for one rule (`limits.rateLimit.createLimiter`, `state.createLimiter`):
 * a RateLimitStore, or a rate-limiter-flexible limiter, which is adapted into one.
 * `keyPrefix` names the rule ('principal', 'tool', 'tool:<name>', 'auth-failures').
 */
export type CreateLimiter = (rule: RateLimitRule, keyPrefix: string) => RateLimitStore | FlexibleLimiter;

let flexible: Flexible | undefined;

/**
 * rate-limiter-flexible, loaded on first use: a server that keeps its limits in process never
 * loads it. An optional peer dependency (the Redis state's limits need it): missing, it is a
 * MissingPackageError naming `npm install rate-limiter-flexible`, when the server is built.
 * @internal
 */
export function loadFlexible(): Flexible {
  flexible ??= requireOptional<Flexible>('rate-limiter-flexible', 'state.redis (rate limits shared in Redis)');
  return flexible;
}

/**
 * A refused take's answer (rate-limiter-flexible's RateLimiterRes): read by its shape, not by
 * `instanceof`, so a limiter the application built from its own copy of the library is adapted
 * without toolwright loading one (it is an optional peer dependency).
 */
function refusedAfterMs(res: unknown): number | undefined {
  if (typeof res !== 'object' || res === null || res instanceof Error) return undefined;
  const { msBeforeNext } = res as { msBeforeNext?: unknown };
  return typeof msBeforeNext === 'number' ? msBeforeNext : undefined;
}

/** A rate-limiter-flexible limiter as a RateLimitStore, keys as given (asynchronous: every answer is a promise). */
export function rateLimitStoreFrom(limiter: FlexibleLimiter): RateLimitStore {
  return {
    take: async (key) => {
      try {
        await limiter.consume(key, 1);
        return undefined;
      } catch (res) {
        const waitMs = refusedAfterMs(res);
        if (waitMs !== undefined) return waitMs;
        throw res; // the store failed (e.g. Redis down): not a limit decision
      }
    },
    peek: async (key) => {
      const res = await limiter.get(key);
      if (!res || res.consumedPoints <= 0) return undefined;
      return { used: res.consumedPoints, resetsInMs: Math.max(0, res.msBeforeNext) };
    },
    // A refused take is counted too (rate-limiter-flexible): give it back either way.
    refund: (key) => void limiter.reward(key, 1).catch(() => {}),
  };
}

/** A RateLimitStore has `take`; a rate-limiter-flexible limiter has none. */
export function isRateLimitStore(made: RateLimitStore | FlexibleLimiter): made is RateLimitStore {
  return typeof (made as Partial<RateLimitStore>).take === 'function';
}

/** `createLimiter` as a store factory: a RateLimitStore it makes is used as it is, a rate-limiter-flexible limiter adapted. */
export function storesFrom(createLimiter: CreateLimiter): CreateRateLimitStore {
  return (rule, name) => {
    const made = createLimiter(rule, name);
    return isRateLimitStore(made) ? made : rateLimitStoreFrom(made);
  };
}
