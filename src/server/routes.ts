import type { Era } from '../protocol/versions.js';
import { providerMaybeRegistered } from '../tracing/lazy.js';
import { serverTracing, type ServerTracing } from '../tracing/server-lazy.js';
import type { TracedCatalog } from '../tracing/middleware.js';
import type { TracingOptions } from '../tracing/options.js';
import { callerKeyOf } from './exchange.js';
import { aroundHandler, middlewarePhase, type AnyMiddleware, type MiddlewarePhase } from './middleware.js';
import { callInfoOf, Operation } from './pipeline/operation.js';
import { serveRequest } from './pipeline/run.js';
import { Answered, type MaybeResult, type MethodHandler, type MethodPhases, type MethodRun, type Route } from './primitives/method-table.js';
import { takeRequestPoint } from './primitives/rate-limit.js';
import { trackedRequest, type RequestTracking } from './primitives/tracked-request.js';

/** What the composer needs besides the routes: the user middleware of each method, the audit trail, tracing. */
interface RouteServices {
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
 *   tracing → audit + shutdown (tracked routes) → [a declared method's run mode
 *   and runner, then its phases: target and authorize → rate key → params]
 *   → user middleware → run
 *
 * A handler route (only a primitive of one's own registers one) has only its run,
 * so its user middleware wraps it (as it wraps a declared method a primitive
 * wrapped); with no middleware, no tracking and no tracing it is its handler.
 */
export function composeRoutes(table: Iterable<[string, Route]>, services: RouteServices): Map<string, ComposedRoute> {
  const routes = new Map<string, ComposedRoute>();
  for (const [method, route] of table) {
    const chain = services.chainOf(method);
    const composed: ComposedRoute = {};
    for (const era of ['modern', 'legacy'] as const) {
      const served = route[era];
      const phases = route.declared?.[era];
      if (!served && !phases) continue;
      const user = chain.length > 0 ? middlewarePhase(method, era, chain, phases?.middlewareFailed ? (err) => err : undefined) : undefined;
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

/** `f(op, value, extra)`, at once when `value` is not a promise: a synchronous phase costs no microtask and no closure. */
function then<A, E>(value: A | Promise<A>, f: (op: Operation, a: A, extra: E) => MaybeResult, op: Operation, extra: E): MaybeResult {
  return value instanceof Promise ? value.then((a) => f(op, a, extra)) : f(op, value, extra);
}

/**
 * A declared method's chain: its phases in their fixed order, under its
 * runner (`serve`: by default the one runner's serveRequest, cancellable by id
 * and by the transport from the moment it arrives, its failures mapped as the
 * work's are), then the user middleware, then the run. A middleware that names
 * another target has it found, authorized and validated again (its rate-limit
 * point was taken). A run mode (tasks) decides how the ordinary run is used.
 */
function declaredRoute<T>(phases: MethodPhases<T>, era: Era, user?: MiddlewarePhase): MethodHandler {
  const { services, rateKey, mode } = phases;
  const serve = phases.serve ?? ((op, given, go) => serveRequest(op, services!.logger, () => go(op, given)));
  const afterMiddleware = async (op: Operation, target: T, after: Record<string, unknown>) => {
    if (!phases.retarget?.(target, after)) return phases.run(op, target, after);
    const other = await phases.target!(op, after);
    if (other instanceof Answered) return other.result;
    const checked = phases.params ? await phases.params(op, other, after) : after;
    return checked instanceof Answered ? checked.result : phases.run(op, other, checked);
  };
  const checkedThenRun = (op: Operation, checked: Record<string, unknown> | Answered, target: T): MaybeResult => {
    if (checked instanceof Answered) return checked.result;
    if (!user) return phases.run(op, target, checked);
    const viewed = phases.viewed ? phases.viewed(op, target) : checked;
    const { info } = op;
    const answer = user(
      op.params,
      info.requestId,
      op.exchange,
      info,
      viewed,
      phases.shown?.(target),
      (after) => afterMiddleware(op, target, after),
      phases.signalled ? op : undefined,
    );
    const failed = phases.middlewareFailed;
    return failed ? answer.catch((err: unknown) => failed(op, err)) : answer;
  };
  const checked = (op: Operation, target: T, given: Record<string, unknown>): MaybeResult =>
    phases.params ? then(phases.params(op, target, given), checkedThenRun, op, target) : checkedThenRun(op, given, target);
  const targeted = (op: Operation, target: T | Answered, given: Record<string, unknown>): MaybeResult => {
    if (target instanceof Answered) return target.result;
    const key = typeof rateKey === 'function' ? rateKey(target) : rateKey;
    if (key === undefined) return checked(op, target, given);
    // A point the in-process limiter grants at once adds no promise; a refusal throws (RateLimitedError).
    const taken = takeRequestPoint(services?.rateLimiter, key, callerKeyOf(op.exchange));
    return taken instanceof Promise ? taken.then(() => checked(op, target, given)) : checked(op, target, given);
  };
  const find = phases.target;
  const phased = find
    ? (op: Operation, given: Record<string, unknown>) => then(find(op, given), targeted, op, given)
    : (op: Operation, given: Record<string, unknown>) => targeted(op, undefined as T, given);
  const pass = (op: Operation, given: Record<string, unknown>) => serve(op, given, phased);
  if (mode) {
    // A run mode's method (tools/call) has a runner of its own, which answers with a promise.
    const run = ((params, info, exchange) => pass(new Operation(params, info, exchange), params)) as MethodRun;
    return (request, exchange, facts) => mode(request.params ?? {}, callInfoOf(request, era, facts), exchange, run);
  }
  return (request, exchange, facts, tracked) => {
    const given = request.params ?? {};
    return pass((tracked as Operation | undefined) ?? new Operation(given, callInfoOf(request, era, facts), exchange), given);
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
