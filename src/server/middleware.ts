import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { RequestId } from '../jsonrpc/types.js';
import type { Caller } from '../policy/auth/caller.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import { getMeta, type Implementation } from '../protocol/meta.js';
import { ToolError } from '../protocol/tool-error.js';
import type { Era } from '../protocol/versions.js';
import type { Exchange } from './exchange.js';
import { ExchangeView } from './exchange-view.js';
import type { MethodHandler, MethodResult } from './primitives/method-table.js';
import { compose } from './compose.js';
import type { ToolAnnotations, ToolResult } from './tool.js';
import type { Prompt } from './primitives/prompts/prompt.js';
import type { Resource, ResourceTemplate } from './primitives/resources/resource.js';

/**
 * What a middleware knows of the request it wraps (see docs/middleware.md).
 * One object per request, made only when some middleware is registered.
 */
export interface MiddlewareContext<P = Record<string, unknown>> {
  /** The JSON-RPC method (`tools/call`, `resources/read`, `initialize`, …). */
  readonly method: string;
  /**
   * The request's params. Change them (or replace the object) before
   * `next()` and the rest of the pipeline sees the change. For `tools/call`,
   * `{ name, arguments }` with the arguments already validated.
   */
  params: P;
  /** 'modern' (2026-07-28, stateless) or 'legacy' (a session opened by `initialize`). */
  readonly era: Era;
  /** Who is calling (ANONYMOUS_CALLER when nobody authenticated); `callerKey(ctx.caller)` is what per-caller state keys on. */
  readonly caller: Caller;
  /** The authenticated caller's id, when the transport knows it (`caller.id`; the older form). */
  readonly principal: string | undefined;
  /** What the transport verified about the caller (subject, client, scopes, claims). */
  readonly auth: AuthInfo | undefined;
  /** The request's `_meta` (progress token, modern envelope, trace context), as the client sent it. */
  readonly meta: Record<string, unknown> | undefined;
  readonly requestId: RequestId;
  /** The request's protocol revision (the modern envelope's, or the legacy session's). */
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  /** What carries the connection ('stdio', 'http', …). */
  readonly transport: string;
  /** HTTP request headers, lower-cased (`traceparent`, `x-request-id`, …); undefined on other transports. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>> | undefined;
  /** The peer's address and port, when the transport knows them (HTTP: the connecting socket's, a proxy's behind one). */
  readonly remoteAddress: string | undefined;
  readonly remotePort: number | undefined;
  /** Aborts when the request is stopped: the client is gone or, for tools/call, cancelled it or it timed out. */
  readonly signal: AbortSignal;
}

/** `tools/call`: the tool, found and authorized, and its arguments, validated. */
export interface ToolCallMiddlewareContext extends MiddlewareContext<{ name: string; arguments: Record<string, unknown> }> {
  readonly method: 'tools/call';
  /** The tool's name, title, annotations (`readOnlyHint`, …) and input schema as registered. */
  readonly tool: { readonly name: string; readonly title?: string; readonly annotations?: ToolAnnotations; readonly inputSchema: Record<string, unknown> };
}

/** `prompts/get`: the prompt, found and authorized, and its arguments, checked (the caller was rate-limited). */
export interface PromptGetMiddlewareContext extends MiddlewareContext<{ name: string; arguments: Record<string, string> } & Record<string, unknown>> {
  readonly method: 'prompts/get';
  /** The prompt as registered (name, title, description, arguments). */
  readonly prompt: Prompt<unknown>;
}

/** `resources/read`: the resource or template that serves the uri, found and authorized (a template's variables checked); absent for a stored result's uri. */
export interface ResourceReadMiddlewareContext extends MiddlewareContext<{ uri: string } & Record<string, unknown>> {
  readonly method: 'resources/read';
  /** The resource, or the resource template, as registered. */
  readonly resource?: Resource | ResourceTemplate<unknown>;
}

/** A `tools/call` result: the tool's, or (modern era) the questions it asks the client first. */
export type ToolCallMiddlewareResult = ToolResult | { resultType: 'input_required'; inputRequests: Record<string, unknown>; requestState: string };

/**
 * Runs the rest of the pipeline once and resolves with its result object,
 * or undefined when the request was cancelled (nothing is sent). Calling it
 * twice is an error.
 */
export type Next<R> = () => Promise<R | undefined>;

/**
 * Middleware around requests: `server.use(mw)` for every method, or
 * `server.use(method, mw)` for one. It may observe, change `ctx.params`
 * before `next()`, change the result after it, answer without calling
 * `next()`, or refuse by throwing: an `RpcError` is the JSON-RPC error the
 * client gets; for `tools/call` a `ToolError` is an `isError` result (for
 * other methods, -32602 with its message).
 */
// biome-ignore lint/suspicious/noExplicitAny: the bound admits every method's context, whatever its params type
export type Middleware<C extends MiddlewareContext<any> = MiddlewareContext, R = MethodResult> = (
  ctx: C,
  next: Next<R>,
) => R | undefined | Promise<R | undefined>;

/** A middleware of any method: what lists of them hold, each entry typed for its own context and result. */
// biome-ignore lint/suspicious/noExplicitAny: the one place the list's element type is left open
export type AnyMiddleware = Middleware<any, any>;

/** The params of the methods `server.use(method, …)` types (others: `Record<string, unknown>`). */
export interface MethodParams {
  'tools/list': { cursor?: string };
  'prompts/list': { cursor?: string };
  'resources/list': { cursor?: string };
  'resources/templates/list': { cursor?: string };
  'prompts/get': { name: string; arguments?: Record<string, string> };
  'resources/read': { uri: string };
  'completion/complete': {
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
    argument: { name: string; value: string };
    context?: { arguments?: Record<string, string> };
  };
  'tasks/get': { taskId: string };
  'tasks/cancel': { taskId: string };
  'tasks/update': { taskId: string; inputResponses: Record<string, unknown> };
  initialize: { protocolVersion: string; capabilities: Record<string, unknown>; clientInfo?: Implementation };
}

/**
 * The context and result types of a method `server.use(method, …)` names.
 * The params are what the method's schema says a client sends. tools/call,
 * prompts/get, resources/read, completion/complete and resources/subscribe
 * have them checked before any middleware runs; for other methods a
 * middleware runs before the handler checks them, so a hostile client may
 * send others.
 */
export type MiddlewareFor<M extends string> = M extends 'tools/call'
  ? Middleware<ToolCallMiddlewareContext, ToolCallMiddlewareResult>
  : M extends 'prompts/get'
    ? Middleware<PromptGetMiddlewareContext>
    : M extends 'resources/read'
      ? Middleware<ResourceReadMiddlewareContext>
      : M extends keyof MethodParams
        ? Middleware<MiddlewareContext<MethodParams[M] & Record<string, unknown>>>
        : Middleware;

/** What `server.use(method, middleware)` records; `method` absent: every method. */
export interface MiddlewareEntry {
  method?: string;
  middleware: AnyMiddleware;
}

/** The middleware module shape the config file's `middleware` list loads: a middleware, or `{ method, middleware }`. */
export type MiddlewareModule = AnyMiddleware | MiddlewareEntry;

/** Checks one `use` argument pair and returns its entry (a clear TypeError for anything else). */
export function middlewareEntry(methodOrMiddleware: unknown, middleware?: unknown): MiddlewareEntry {
  if (typeof methodOrMiddleware === 'function' && middleware === undefined) return { middleware: methodOrMiddleware as Middleware };
  if (typeof methodOrMiddleware === 'string' && methodOrMiddleware !== '' && typeof middleware === 'function')
    return { method: methodOrMiddleware, middleware: middleware as Middleware };
  throw new TypeError('use: expected use(middleware) or use(method, middleware), where middleware is a function (ctx, next) => result');
}

/**
 * @internal A middleware's context: a view of its request (nothing copied until asked for).
 * A declared method's phases may show more (`ctx.tool`, `ctx.prompt`) and lend it the operation's signal.
 */
class RequestMiddlewareContext<R = MethodResult | undefined> extends ExchangeView implements MiddlewareContext {
  private controller?: AbortController;
  private unwatch?: () => void;
  /** @internal the operation whose signal is this context's (tools/call: it aborts on cancellation and timeout too) */
  stop?: { readonly signal: AbortSignal };

  constructor(
    readonly method: string,
    readonly era: Era,
    /** @internal */ readonly exchange: Exchange,
    private readonly requestParams: Record<string, unknown> | undefined,
    readonly requestId: RequestId,
    private readonly facts: { readonly protocolVersion: string; readonly clientInfo?: Implementation },
    public params: Record<string, unknown>,
    /** @internal the rest of the route, given the params as the middleware left them */
    protected readonly next: (params: Record<string, unknown>) => Promise<R>,
  ) {
    super();
  }

  get meta(): Record<string, unknown> | undefined {
    return getMeta(this.requestParams);
  }

  get protocolVersion(): string {
    return this.facts.protocolVersion;
  }

  get clientInfo(): Implementation | undefined {
    return this.facts.clientInfo;
  }

  // Made on first use: most middleware never looks at it.
  get signal(): AbortSignal {
    if (this.stop) return this.stop.signal;
    if (!this.controller) {
      const controller = (this.controller = new AbortController());
      this.unwatch = this.exchange.onClose?.((reason) => controller.abort(reason));
    }
    return this.controller.signal;
  }

  /** @internal the rest of the route, last in the middleware's chain */
  proceed(): Promise<R> {
    return this.next(this.params);
  }

  release(): void {
    this.unwatch?.();
  }
}

/**
 * A route's middleware phase: `chain` composed once (when `use` is called),
 * so a request pays only for the middleware it has. The middleware sees
 * `params` as `ctx.params` (a declared method's, checked; a handler's, as
 * sent) and `shown`'s fields (`ctx.prompt`, `ctx.resource`); the route goes
 * on with `ctx.params` as the middleware left them. A user middleware's
 * ToolError is -32602 with its message; the server's own (tracing) pass
 * errors through untouched (`mapError`).
 */
export type MiddlewarePhase = (
  requestParams: Record<string, unknown> | undefined,
  requestId: RequestId,
  exchange: Exchange,
  facts: { readonly protocolVersion: string; readonly clientInfo?: Implementation },
  params: Record<string, unknown>,
  shown: Record<string, unknown> | undefined,
  next: (params: Record<string, unknown>) => Promise<MethodResult | undefined>,
  stop?: { readonly signal: AbortSignal },
) => Promise<MethodResult | undefined>;

export function middlewarePhase(method: string, era: Era, chain: readonly AnyMiddleware[], mapError = asRequestError): MiddlewarePhase {
  const run = compose<RequestMiddlewareContext, MethodResult | undefined>(chain, (ctx) => ctx.proceed(), true);
  return (requestParams, requestId, exchange, facts, params, shown, next, stop) => {
    const ctx = new RequestMiddlewareContext(method, era, exchange, requestParams, requestId, facts, params, next);
    if (shown) Object.assign(ctx, shown);
    if (stop) ctx.stop = stop;
    return run(ctx).then(
      (result) => {
        ctx.release();
        return result;
      },
      (err: unknown) => {
        ctx.release();
        throw mapError(err);
      },
    );
  };
}

/** A handler behind its middleware phase: it gets the request as the middleware left its params. */
export function aroundHandler(phase: MiddlewarePhase, handler: MethodHandler): MethodHandler {
  return (request, exchange, facts, tracked) => {
    const params = request.params ?? {};
    return phase(request.params, request.id, exchange, facts, params, undefined, async (after) =>
      handler(after === params ? request : { ...request, params: after }, exchange, facts, tracked),
    );
  };
}

/** Outside tools/call a ToolError is the author's message to the client (-32602), as from a prompt's handler. */
function asRequestError(err: unknown): unknown {
  return err instanceof ToolError ? new RpcError(ErrorCode.InvalidParams, err.message) : err;
}
