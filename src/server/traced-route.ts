import type { Era } from '../protocol/versions.js';
import { lazyModule, providerMaybeRegistered } from '../tracing/lazy.js';
import type { TracedCatalog } from '../tracing/middleware.js';
import type { TracingOptions } from '../tracing/options.js';
import { aroundRoute } from './middleware.js';
import type { MethodHandler } from './primitives/method-table.js';

// The tracing middleware and the OpenTelemetry API behind it, imported when a provider is first seen (tracing/lazy.ts).
const serverTracing = lazyModule(() => import('../tracing/server-route.js'));

/**
 * A route behind the tracing middleware (docs/tracing.md), outermost: its
 * SERVER span covers everything the request does, audit tracking and (for
 * tools/call) the whole call pipeline, refusals included. While no
 * OpenTelemetry SDK is registered a request goes straight to the route: no
 * middleware context, no span, no attributes, and the API is not loaded. `catalog` says whether a
 * tool or prompt name is registered (only those name spans and series) and
 * redacts recorded arguments as the audit trail does.
 */
export function tracedRoute(method: string, era: Era, options: TracingOptions, handler: MethodHandler, catalog: TracedCatalog): MethodHandler {
  let traced: MethodHandler | undefined;
  return (request, exchange, facts, tracked) => {
    if (!providerMaybeRegistered()) return handler(request, exchange, facts, tracked);
    const route = (tracing: Awaited<ReturnType<typeof serverTracing.get>>) => {
      if (!tracing.telemetryActive('server')) return handler(request, exchange, facts, tracked);
      traced ??= aroundRoute(method, era, tracing.tracing(options, catalog), handler);
      return traced(request, exchange, facts, tracked);
    };
    const tracing = serverTracing.get();
    return tracing instanceof Promise ? tracing.then(route) : route(tracing);
  };
}
