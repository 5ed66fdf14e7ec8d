/**
 * The OpenTelemetry API, loaded only once something could record. Loading @opentelemetry/api is
 * ~50 modules and ~70 ms of CPU at every start (issue #33), and with no provider registered
 * tracing does nothing. The API keeps what an application registers on a global object
 * (`globalThis[Symbol.for('opentelemetry.js.api.1')]`, its `trace` and `metrics` entries), shared
 * by every copy of API 1.x, so asking it "could anything record?" costs two property reads and no
 * import. When it could, the tracing modules are imported (once) and decide as before: a provider
 * registered after start-up is picked up on the next request.
 */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

interface OtelGlobal {
  trace?: unknown;
  metrics?: unknown;
}

/** False when neither a tracer provider nor a meter provider is registered (then nothing records). */
export function providerMaybeRegistered(): boolean {
  const registered = (globalThis as Record<symbol, OtelGlobal | undefined>)[OTEL_GLOBAL];
  return registered !== undefined && (registered.trace !== undefined || registered.metrics !== undefined);
}

/** A module loaded by the first call, then held: `get()` is the module, or a promise of it while it loads. */
export interface LazyModule<M> {
  get(): M | Promise<M>;
}

export function lazyModule<M>(load: () => Promise<M>): LazyModule<M> {
  let loaded: M | undefined;
  let loading: Promise<M> | undefined;
  return {
    get() {
      if (loaded !== undefined) return loaded;
      loading ??= load().then((m) => {
        loaded = m;
        return m;
      });
      return loading;
    },
  };
}
