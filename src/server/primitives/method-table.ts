import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../../jsonrpc/types.js';
import type { RequestEnvelope } from '../../protocol/meta.js';
import type { Era } from '../../protocol/versions.js';
import type { Exchange, LegacySession } from '../exchange.js';
import { parsedWithJson } from '../serialized.js';
import type { RateLimiter } from '../../policy/rate-limit.js';
import type { Logger } from '../../runtime/logger.js';
import type { CallInfo, Operation } from '../pipeline/operation.js';
import type { TrackedRequest } from './tracked.js';

/**
 * What the request's era says about its client: the modern request's own
 * `_meta` envelope, or the legacy session's handshake. Both carry the same
 * fields, so handing either over allocates nothing.
 */
export type RequestFacts = RequestEnvelope | LegacySession;

/**
 * A request's result object, as the handler made it: the transport edge
 * serializes it once, for the request's era (adding a modern result's
 * `resultType` and server identity when it has none). A result that never
 * changes may carry its JSON text already (`withJson`, serialized.ts): list
 * pages and `server/discover` do.
 */
export type MethodResult = Record<string, unknown>;

/** Undefined: the request was cancelled and gets no response. */
export type MaybeResult = MethodResult | undefined | Promise<MethodResult | undefined>;

/**
 * Answers one request of one era with its result object: a route as the composer
 * built it, or the handler of a primitive of one's own (its only phase is its run;
 * every method the server ships is declared instead).
 * May throw an RpcError: the dispatcher turns it into the error reply.
 * `tracked` is given to the handlers of a route registered `{ tracked: true }`:
 * the audit record being written for the request (what it named, how it ended).
 */
export type MethodHandler = (request: JsonRpcRequest, exchange: Exchange, facts: RequestFacts, tracked?: TrackedRequest) => MaybeResult;

/** @internal A target phase's answer for a request acknowledged without running (a legacy subscribe to a resource the caller may not read). */
export class Answered {
  constructor(readonly result: MethodResult) {}
}

/** One ordinary run of a declared method (a run mode such as a task calls it for each of its passes). */
export type MethodRun = (params: Record<string, unknown>, info: CallInfo, exchange: Exchange) => Promise<MethodResult | undefined>;

/**
 * @internal A method declared by its fixed phases (docs/architecture.md "The way of one
 * request"). The one route composer (server/routes.ts) runs them in this order
 * under the method's runner (`serve`): find the target and authorize → rate key →
 * read and validate the params → user middleware (server.use) → run. `T` is
 * what the request targets (a tool, a prompt, a resource, a completion
 * reference). A phase that answers synchronously is not awaited.
 */
export interface MethodPhases<T = unknown> {
  /** Where a failure's detail is logged (the default runner), and the limiter the rate key spends a point of. */
  services?: { logger: Logger; rateLimiter?: RateLimiter };
  /**
   * Runs the phases (`go(op, params)`) for one operation: by default the one runner's
   * serveRequest (cancellable from arrival, failures mapped to JSON-RPC errors).
   * tools/call: counted among the calls in flight and audited per run. `runs`: the phases as they are.
   */
  serve?(op: Operation, params: Record<string, unknown>, go: (op: Operation, params: Record<string, unknown>) => MaybeResult): MaybeResult;
  /** Another way the request may run (tasks: CallModes); `run` is one ordinary run. */
  mode?(params: Record<string, unknown>, info: CallInfo, exchange: Exchange, run: MethodRun): MaybeResult;
  /**
   * Finds what the params name and authorizes the caller for it (-32602 unknown, 403 missing scopes); `Answered`: answered without running.
   * Absent: the request names nothing to find (a list, filtered by the caller's scopes instead; a task, looked up by its run).
   */
  target?(op: Operation, params: Record<string, unknown>): T | Answered | Promise<T | Answered>;
  /** The method whose per-caller rate-limit bucket the request spends a point of; absent or undefined: not limited. */
  rateKey?: string | ((target: T) => string | undefined);
  /** Reads and validates the params against the target: what the user middleware sees as `ctx.params` (absent: the params as sent); `Answered`: refused. */
  params?(op: Operation, target: T, params: Record<string, unknown>): Record<string, unknown> | Answered | Promise<Record<string, unknown> | Answered>;
  /** What the user middleware sees as `ctx.params`, when not the checked params (tools/call: `{ name, arguments }`). */
  viewed?(op: Operation, target: T): Record<string, unknown>;
  /** What the user middleware's context shows besides (`ctx.tool`, `ctx.prompt`, `ctx.resource`). */
  shown?(target: T): Record<string, unknown> | undefined;
  /** The middleware's `ctx.signal` is the operation's own: it aborts on cancellation and timeout too (tools/call). */
  signalled?: boolean;
  /** A user middleware's throw as the method answers it (absent: a ToolError is -32602, as `serve` maps the rest). */
  middlewareFailed?(op: Operation, err: unknown): MethodResult | undefined;
  /** Whether the params as a middleware left them name another target: found, authorized and validated again (no second rate-limit point). */
  retarget?(target: T, params: Record<string, unknown>): boolean;
  /** The work, with the params as the middleware left them. */
  run(op: Operation, target: T, params: Record<string, unknown>): MaybeResult;
}

/** A method's only phase: its run, given the params as the user middleware left them. */
export type RunOnly = (op: Operation, params: Record<string, unknown>) => MaybeResult;

/** A method's handlers; a missing era answers -32601 (the method does not exist in that revision). */
export interface Route {
  modern?: MethodHandler;
  legacy?: MethodHandler;
  /** @internal the eras whose method is declared by its phases (`declare`) instead of a handler */
  // biome-ignore lint/suspicious/noExplicitAny: each declaration has a target type of its own
  declared?: Partial<Record<Era, MethodPhases<any>>>;
  /**
   * The audit rule: a method that changes state or runs user code is tracked.
   * Audited and counted by the dispatcher (tracked-request.ts): refused once the
   * server shuts down, waited for by a drain, one audit record however it ends.
   * (tools/call is recorded by the same auditStep, in its `serve`, once per run: a task's record is its outcome.)
   */
  tracked?: boolean;
  /**
   * What a tracked request names, read from its params before anything runs
   * (its audit record's target and arguments; the handler may refine them).
   * Default: the first string of `name`, `uri`, `taskId` or `level`, and `arguments`.
   */
  names?: (op: TrackedRequest, params: Record<string, unknown>) => void;
  /**
   * A long-lived request (subscriptions/listen): tracked, but not among the
   * requests a drain waits for (server.close() ends it); its record is written
   * when it ends.
   */
  stream?: boolean;
  /** @internal a declared era's wrappers (`wrap`), applied in order around its composed phases */
  wrappers?: Partial<Record<Era, ((inner: MethodHandler) => MethodHandler)[]>>;
}

/**
 * Every method the server answers, by name: one Map lookup per request. A
 * primitive registers its methods once, at construction, with the eras that
 * serve each one; the dispatcher never grows a branch per method.
 */
export class MethodTable {
  private readonly routes = new Map<string, Route>();

  /** Serves `method` in the eras given. Registering an era twice is a bug (two modules claim one method). */
  add(method: string, route: Route): this {
    const current = this.routes.get(method) ?? {};
    for (const era of ['modern', 'legacy'] as const) {
      if (served(route, era) && served(current, era)) throw new Error(`${method} is already served in the ${era} era`);
    }
    const declared = current.declared || route.declared ? { declared: { ...current.declared, ...route.declared } } : {};
    this.routes.set(method, { ...current, ...route, ...declared });
    return this;
  }

  /** Serves `method` in both eras; `make` builds each era's handler once (the era is fixed in its closure). */
  both(method: string, make: (era: Era) => MethodHandler, options?: Omit<Route, Era>): this {
    return this.add(method, { modern: make('modern'), legacy: make('legacy'), ...options });
  }

  /** @internal Serves `method` in `eras` by its phases, composed by the route composer (server/routes.ts). */
  declare<T>(method: string, eras: readonly Era[], phases: MethodPhases<T>, options?: Omit<Route, Era | 'declared'>): this {
    return this.add(method, { ...options, declared: Object.fromEntries(eras.map((era) => [era, phases])) });
  }

  /**
   * @internal Serves `method` in `eras` by its run alone (the lists, discovery, the lifecycle, tasks/*, subscriptions/listen,
   * skills/*): its runner runs it as it is. It answers at once or watches its own request (tasks/result, subscriptions/listen),
   * so no cancellation is registered; a throw is answered as thrown (at the edge: an RpcError as itself, else -32603).
   */
  runs(method: string, eras: readonly Era[], run: RunOnly, options?: Omit<Route, Era | 'declared'>): this {
    return this.declare(method, eras, { serve: (op, params, go) => go(op, params), run: (op, _, params) => run(op, params) }, options);
  }

  /**
   * Replaces an era's handler of `method` by `wrapper(inner)`: a later module
   * (a primitive of one's own) that changes how a method is answered without
   * its owner knowing. A declared method's `inner` is its phases, composed
   * (user middleware then runs around the wrapper, before the phases' checks).
   */
  wrap(method: string, era: Era, wrapper: (inner: MethodHandler) => MethodHandler): this {
    const route = this.routes.get(method);
    if (!route || !served(route, era)) throw new Error(`${method} is not served in the ${era} era; nothing to wrap`);
    const inner = route[era];
    const wrapped = inner ? { [era]: wrapper(inner) } : { wrappers: { ...route.wrappers, [era]: [...(route.wrappers?.[era] ?? []), wrapper] } };
    this.routes.set(method, { ...route, ...wrapped });
    return this;
  }

  get(method: string): Route | undefined {
    return this.routes.get(method);
  }

  /** Every method and its route (the dispatcher composes its request pipeline from them). */
  entries(): IterableIterator<[string, Route]> {
    return this.routes.entries();
  }

  /** Methods served in `era` (for tests and diagnostics). */
  methods(era: Era): string[] {
    return [...this.routes].filter(([, route]) => served(route, era)).map(([method]) => method);
  }
}

function served(route: Route, era: Era): boolean {
  return route[era] !== undefined || route.declared?.[era] !== undefined;
}

/**
 * One module per primitive (tools, resources, prompts, completion, tasks):
 * it registers its methods once and says what it adds to the capabilities.
 * Era differences live inside the module, not in the dispatcher.
 */
export interface Primitive {
  /** Adds this primitive's members to the capabilities `era`'s clients are told of (server/discover, initialize). */
  advertise?(capabilities: Record<string, unknown>, era: Era): void;
  /** Registers the methods it answers (and may wrap those registered before it). */
  register(methods: MethodTable): void;
  /** Ends what it holds open (long-lived requests) at shutdown. */
  close?(): void;
}

/**
 * The result object of a result that is already JSON text (shaped for the
 * request's era), written as that text at the edge. For primitives of one's
 * own that build JSON text; returning the object itself is the usual way.
 */
export function ok(_request: JsonRpcRequest, resultJson: string): MethodResult {
  return parsedWithJson(resultJson);
}

export function methodNotFound(method: string): RpcError {
  return new RpcError(ErrorCode.MethodNotFound, `Method not found: ${method.length > 100 ? `${method.slice(0, 100)}…` : method}`);
}
