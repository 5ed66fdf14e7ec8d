/** One step of a chain: do its job, then call `next` at most once (or answer without it). */
export type Step<C, R> = (ctx: C, next: () => Promise<R>) => R | Promise<R>;

/**
 * The one composer (Hono's compose.ts is the model): `steps` around `last`,
 * first step outermost, built once when a chain is built, never per request.
 * The server's own steps (trusted, and on every call's path) share one `next`
 * per run. `guarded` chains, the user's middleware, get one `next` per step,
 * so a middleware that calls `next()` twice is refused (the rest of the chain
 * runs once per request), and a middleware that throws or answers a plain
 * value is turned into a promise.
 */
export function compose<C, R>(steps: readonly Step<C, R>[], last: (ctx: C) => Promise<R>, guarded = false): (ctx: C) => Promise<R> {
  const count = steps.length;
  if (count === 0) return last;
  if (!guarded) {
    return (ctx) => {
      let i = 0;
      const next = (): Promise<R> => (i < count ? (steps[i++](ctx, next) as Promise<R>) : last(ctx));
      return next();
    };
  }
  return (ctx) => {
    let index = -1;
    const dispatch = (i: number): Promise<R> => {
      if (i <= index) return Promise.reject(new Error('a middleware called next() more than once'));
      index = i;
      if (i === count) return last(ctx);
      try {
        return Promise.resolve(steps[i](ctx, () => dispatch(i + 1)));
      } catch (err) {
        return Promise.reject(err);
      }
    };
    return dispatch(0);
  };
}
