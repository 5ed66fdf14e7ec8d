import type { Era } from '../protocol/versions.js';
import { tracing, type TracedCatalog } from '../tracing/middleware.js';
import type { TracingOptions } from '../tracing/options.js';
import { telemetryActive } from '../tracing/providers.js';
import { aroundRoute } from './middleware.js';
import type { MethodHandler } from './primitives/method-table.js';

/**
 * A route behind the tracing middleware (docs/tracing.md), outermost: its
 * SERVER span covers everything the request does, audit tracking and (for
 * tools/call) the whole call pipeline, refusals included. While no
 * OpenTelemetry SDK is registered a request goes straight to the route: no
 * middleware context, no span, no attributes. `catalog` says whether a
 * tool or prompt name is registered (only those name spans and series) and
 * redacts recorded arguments as the audit trail does.
 */
export function tracedRoute(method: string, era: Era, options: TracingOptions, handler: MethodHandler, catalog: TracedCatalog): MethodHandler {
  const traced = aroundRoute(method, era, tracing(options, catalog), handler);
  return (request, exchange, facts, tracked) =>
    telemetryActive('server') ? traced(request, exchange, facts, tracked) : handler(request, exchange, facts, tracked);
}
