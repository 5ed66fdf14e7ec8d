import type { Era } from '../protocol/versions.js';
import { providerMaybeRegistered } from '../tracing/lazy.js';
import { serverTracing, type ServerTracing } from '../tracing/server-lazy.js';
import type { TracedCatalog } from '../tracing/middleware.js';
import type { TracingOptions } from '../tracing/options.js';
import { callerKeyOf } from './exchange.js';
import { aroundHandler, middlewarePhase, type AnyMiddleware, type MiddlewarePhase } from './middleware.js';
import { callInfoOf, Operation } from './pipeline/operation.js';
import { serveRequest } from './pipeline/run.js';
import { Answered, type MethodHandler, type MethodPhases, type Route } from './primitives/method-table.js';
import { takeRequestPoint } from './primitives/rate-limit.js';
import { trackedRequest, type RequestTracking } from './primitives/tracked-request.js';

/** What the composer needs besides the routes: the user middleware of each method, the audit trail, tracing. */
export interface RouteServices {
  /** The user middleware (server.use) that applies to `method`, in the order it was added. */
  chainOf(method: string): readonly AnyMiddleware[];
  tracking: RequestTracking;
  tracing?: TracingOptions | false;
  catalog: TracedCatalog;
}

/** A method's chain for each era it is served in, as requests run it. */
export type ComposedRoute = Partial<Record<Era, MethodHandler>>;

/**
 * The one route composer: every method's chain, built once (and again on
 * each `server.use`), never per request, in the same fixed order:
 *
 *   tracing → audit + shutdown (tracked routes) → [a declared method's phases:
 *   target and authorize → rate key → params] → user middleware → run
 *
 * A handler route's only phase is its run, so its user middleware wraps it; a
 * route whose own pipeline takes the middleware as a stage (tools/call) is
 * given the chain instead. With no middleware, no tracking and no tracing a
 * route is its handler.
 */
export function composeRoutes(table: Iterable<[string, Route]>, services: RouteServices): Map<string, ComposedRoute> {
  const routes = new Map<string, ComposedRoute>();
  for (const [method, route] of table) {
    const chain = services.chainOf(method);
    route.useMiddleware?.(chain);
    const composed: ComposedRoute = {};
    for (const era of ['modern', 'legacy'] as const) {
      const served = route[era];
      const phases = route.declared?.[era];
      if (!served && !phases) continue;
      const user = chain.length > 0 && !route.useMiddleware ? middlewarePhase(method, era, chain) : undefined;
      let handler: MethodHandler;
      const wrappers = route.wrappers?.[era];
      if (served || wrappers) {
        const inner = served ?? wrappers!.reduce((h, wrap) => wrap(h), declaredRoute(phases!, era));
        handler = user ? aroundHandler(user, inner) : inner;
      } else handler = declaredRoute(phases!, era, user);
      if (route.tracked) handler = trackedRequest(method, era, services.tracking, handler, route);
      if (services.tracing) handler = tracedRoute(method, era, services.tracing, handler, services.catalog);
      composed[era] = handler;
    }
    routes.set(method, composed);
  }
  return routes;
}

/**
 * A declared method's chain: its phases in their fixed order, under the one
 * runner's serveRequest (cancellable by id and by the transport from the
 * moment it arrives, its failures mapped as the work's are), then the user
 * middleware, then the run. A middleware that names another target has it
 * found, authorized and validated again (its rate-limit point was taken).
 */
function declaredRoute<T>(phases: MethodPhases<T>, era: Era, user?: MiddlewarePhase): MethodHandler {
  const { services } = phases;
  const rateKey = phases.rateKey;
  return (request, exchange, facts, tracked) => {
    const op = (tracked as Operation | undefined) ?? new Operation(request.params ?? {}, callInfoOf(request, era, facts), exchange);
    return serveRequest(op, services.logger, async () => {
      const given = request.params ?? {};
      const target = await phases.target(op, given);
      if (target instanceof Answered) return target.result;
      const key = typeof rateKey === 'function' ? rateKey(target) : rateKey;
      if (key !== undefined) await takeRequestPoint(services.rateLimiter, key, callerKeyOf(exchange));
      const checked = phases.params ? await phases.params(op, target, given) : given;
      if (!user) return phases.run(op, target, checked);
      return user(request, exchange, facts, checked, phases.shown?.(target), async (after) => {
        if (!phases.retarget?.(target, after)) return phases.run(op, target, after);
        const other = await phases.target(op, after);
        if (other instanceof Answered) return other.result;
        return phases.run(op, other, phases.params ? await phases.params(op, other, after) : after);
      });
    });
  };
}

/**
 * A route behind the tracing middleware (docs/tracing.md), outermost: its
 * SERVER span covers everything the request does, audit tracking and (for
 * tools/call) the whole call pipeline, refusals included. While no
 * OpenTelemetry SDK is registered a request goes straight to the route: no
 * middleware context, no span, no attributes, and the API is not loaded. `catalog` says whether a
 * tool or prompt name is registered (only those name spans and series) and
 * redacts recorded arguments as the audit trail does. Errors pass through
 * untouched: the route answers exactly as it would without it.
 */
function tracedRoute(method: string, era: Era, options: TracingOptions, handler: MethodHandler, catalog: TracedCatalog): MethodHandler {
  let traced: MethodHandler | undefined;
  return (request, exchange, facts, tracked) => {
    if (!providerMaybeRegistered()) return handler(request, exchange, facts, tracked);
    const route = (loaded: ServerTracing) => {
      if (!loaded.telemetryActive('server')) return handler(request, exchange, facts, tracked);
      traced ??= aroundHandler(
        middlewarePhase(method, era, [loaded.tracing(options, catalog)], (err) => err),
        handler,
      );
      return traced(request, exchange, facts, tracked);
    };
    const loaded = serverTracing.get();
    return loaded instanceof Promise ? loaded.then(route) : route(loaded);
  };
}
