import type { MiddlewareContext, AnyMiddleware } from '../server/middleware.js';

/** The `_meta` key of the timing, on requests that ask for it and on the results that answer them. */
export const SERVER_TIMING = 'dev.toolwright/serverTiming';

export interface TimingOptions {
  /** Time every request, asked or not (default false: only requests whose `_meta` has `"dev.toolwright/serverTiming": true`). */
  always?: boolean;
}

/**
 * Timing, `Server-Timing`-like: a request asks with `_meta:
 * { "dev.toolwright/serverTiming": true }` and its result carries
 * `_meta: { "dev.toolwright/serverTiming": "total;dur=1.234" }`, the
 * milliseconds from this middleware to the result (register it first to
 * time everything after authentication). A request that does not ask is
 * passed through untouched.
 *
 *   server.use(timing());
 */
export function timing(options: TimingOptions = {}): AnyMiddleware {
  const always = options.always === true;
  return async (ctx: MiddlewareContext, next: () => Promise<Record<string, unknown> | undefined>) => {
    if (!always && ctx.meta?.[SERVER_TIMING] !== true) return next();
    const startedAt = performance.now();
    const result = await next();
    if (result === undefined) return result;
    const dur = Math.round((performance.now() - startedAt) * 1000) / 1000;
    const meta = typeof result._meta === 'object' && result._meta !== null ? result._meta : {};
    // A copy: the result may be frozen (a cached list page).
    return { ...result, _meta: { ...meta, [SERVER_TIMING]: `total;dur=${dur}` } };
  };
}
