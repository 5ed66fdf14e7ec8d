/**
 * What a client middleware sees of one outgoing request (`client.use`).
 * Change `params`, `meta` (extra `_meta` keys: trace context, …) or
 * `headers` (HTTP only) before `next()`; the protocol's own `_meta` keys
 * are added after and win.
 */
export interface ClientRequestContext {
  readonly method: string;
  params: Record<string, unknown>;
  /** Extra `_meta` keys for the request. */
  meta: Record<string, unknown>;
  /** Extra HTTP headers for the request (ignored on other transports). */
  headers: Record<string, string>;
  /** The caller's signal, if it gave one. */
  readonly signal: AbortSignal | undefined;
}

/**
 * Middleware around every request the client sends after connecting
 * (`client.use(mw)`): `await next()` sends it (with the context as it is
 * then) and resolves with the result object or rejects with the client's
 * error. Unlike server middleware, `next()` may be called again: a retry.
 */
export type ClientMiddleware = (ctx: ClientRequestContext, next: () => Promise<Record<string, unknown>>) => Promise<Record<string, unknown>>;

/** Runs `chain` around `send`, first middleware outermost. */
export function runClientChain(
  chain: readonly ClientMiddleware[],
  ctx: ClientRequestContext,
  send: (ctx: ClientRequestContext) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const dispatch = (i: number): Promise<Record<string, unknown>> => {
    if (i === chain.length) return send(ctx);
    try {
      return Promise.resolve(chain[i](ctx, () => dispatch(i + 1)));
    } catch (err) {
      return Promise.reject(err);
    }
  };
  return dispatch(0);
}

/** The client's middleware (client.use), and one request run through it. */
export class ClientMiddlewareChain {
  private readonly chain: ClientMiddleware[] = [];

  add(middleware: ClientMiddleware): void {
    if (typeof middleware !== 'function') throw new TypeError('use: expected a middleware function (ctx, next) => result');
    this.chain.push(middleware);
  }

  /** `send` alone when there is no middleware (no context object built); else through the chain, first added outermost. */
  run<O extends { meta?: Record<string, unknown>; headers?: Record<string, string>; signal?: AbortSignal }>(
    method: string,
    params: Record<string, unknown>,
    options: O,
    send: (params: Record<string, unknown>, options: O) => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    if (this.chain.length === 0) return send(params, options);
    const ctx: ClientRequestContext = { method, params, meta: { ...options.meta }, headers: { ...options.headers }, signal: options.signal };
    return runClientChain(this.chain, ctx, (c) =>
      send(c.params, { ...options, meta: c.meta, headers: Object.keys(c.headers).length > 0 ? c.headers : options.headers }),
    );
  }
}
