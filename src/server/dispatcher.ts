import { encodeError, encodeResult } from '../jsonrpc/encode.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../jsonrpc/types.js';
import { isPlainObject } from '../protocol/content.js';
import { hasModernClaim, readEnvelope, type Implementation } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import { ResultEncoder } from '../protocol/result.js';
import type { Era } from '../protocol/versions.js';
import { InsufficientScopeError } from './pipeline/authorize.js';
import { MethodTable, methodNotFound, standardPrimitives, type MethodResult, type Primitive, type RequestFacts } from './primitives/index.js';
import { RateLimitedError } from './primitives/rate-limit.js';
import { composeRoutes, type ComposedRoute } from './routes.js';
import { redactArguments } from '../audit/redact.js';
import { retryAfterMsOf } from './pipeline/results.js';
import { jsonOf } from './serialized.js';
import type { MiddlewareEntry } from './middleware.js';
import type { Logger } from '../runtime/logger.js';
import { ClientNotificationHub } from './client-notifications.js';
import { ANONYMOUS_CALLER, type Caller } from '../policy/auth/caller.js';
import type { Peer } from './peer.js';
import type { LegacySession } from './legacy-session.js';
import type { Exchange, Reply } from './exchange.js';
import type { DispatcherOptions, PrimitiveContext } from './primitive-context.js';
import { recordedId, recordedValue } from '../jsonrpc/recorded.js';

export type { DispatcherOptions, PrimitiveContext };

/**
 * @internal Routes one message to its era's lifecycle. A request carrying the modern
 * `_meta` envelope is served statelessly (2026-07-28); `initialize` (the
 * lifecycle primitive's) opens a legacy session on the peer; other requests
 * follow the peer's session. Each
 * method is one lookup in the routes composed (server/routes.ts) from the
 * table the primitives registered into (see `primitives/`) and the user's
 * middleware: every request, `initialize` included, takes the same path
 * (docs/architecture.md "The way of one request"), and its result object is
 * serialized once, here, for its era.
 * Knows nothing of sockets: transports hand it messages and write its replies.
 */
export class Dispatcher {
  private readonly methods = new MethodTable();
  private readonly primitives: Primitive[];
  private readonly results: ResultEncoder;
  private readonly middleware: MiddlewareEntry[] = [];
  /** Each method's handlers as requests run them: composed at construction and again on `use`, never per request. */
  private routes = new Map<string, ComposedRoute>();

  constructor(private readonly options: DispatcherOptions) {
    this.clientNotifications = new ClientNotificationHub(options.logger);
    const results = (this.results = new ResultEncoder(options.serverInfo));
    // What the primitives advertise, worked out once, on the first discover or initialize (all are registered by then).
    const advertised: Partial<Record<Era, Record<string, unknown>>> = {};
    this.primitives = [
      ...standardPrimitives({ ...options, results, capabilities: (era) => (advertised[era] ??= this.capabilities(era)) }),
      ...(options.primitives?.({ results, options }) ?? []),
    ];
    for (const primitive of this.primitives) primitive.register(this.methods);
    this.compose();
  }

  /** Adds user middleware (server.use) and recomposes the routes it applies to. */
  use(entry: MiddlewareEntry): void {
    this.middleware.push(entry);
    this.compose();
  }

  /** Builds every route's chain (server/routes.ts), at construction and again on each `use`, never per request. */
  private compose(): void {
    const { calls, auditSink, auditGuard, auditInstance: instance, logger, registry, prompts } = this.options;
    this.routes = composeRoutes(this.methods.entries(), {
      chainOf: (method) => this.middleware.filter((m) => m.method === undefined || m.method === method).map((m) => m.middleware),
      tracking: { calls, auditSink, auditGuard, instance, logger },
      tracing: this.options.tracing,
      catalog: {
        knownTarget: (method, name) => (method === Method.toolsCall ? registry.has(name) : prompts.has(name)),
        redactArguments: (name, args) => redactArguments(args, registry.get(name)?.inputSchema),
      },
    });
  }

  get logger(): Logger {
    return this.options.logger;
  }

  /** Answers a request; undefined when the request was cancelled and must get no response. */
  async handleRequest(request: JsonRpcRequest, exchange: Exchange): Promise<Reply | undefined> {
    try {
      const params = request.params;
      if (hasModernClaim(params)) {
        const envelope = readEnvelope(params);
        // Includes the methods this revision removed: initialize, ping, logging/setLevel.
        const handler = this.routes.get(request.method)?.modern;
        if (!handler) throw methodNotFound(request.method);
        return this.reply(request, 'modern', await handler(request, exchange, envelope));
      }
      if (request.method === Method.initialize) {
        return this.reply(request, 'legacy', await this.routes.get(Method.initialize)!.legacy!(request, exchange, handshakeFacts(params)));
      }
      const session = exchange.peer.legacy;
      if (session) {
        const handler = this.routes.get(request.method)?.legacy;
        if (!handler) throw methodNotFound(request.method);
        return this.reply(request, 'legacy', await handler(request, exchange, session));
      }
      // Neither a modern envelope nor a legacy session: a malformed modern request (basic/index "_meta").
      try {
        readEnvelope(params);
      } catch (err) {
        throw withLegacyHint(err);
      }
      throw new RpcError(ErrorCode.InvalidRequest, 'Invalid Request');
    } catch (err) {
      return this.errorReply(request.id, err);
    }
  }

  /**
   * The edge: a result object serialized once, for its era (a pre-serialized
   * result's own text, else the era's encoding), with the Retry-After of a
   * rate-limited tool call. Undefined: cancelled, no answer.
   */
  private reply(request: JsonRpcRequest, era: Era, result: MethodResult | undefined): Reply | undefined {
    if (result === undefined) return undefined;
    if (typeof result !== 'object' || result === null || Array.isArray(result))
      throw new TypeError(`${request.method}: a handler or middleware answered with ${result === null ? 'null' : typeof result}, not a result object`);
    const reply: Reply = { json: encodeResult(request.id, jsonOf(result) ?? this.results.encode(era, result)), status: 200 };
    const retryAfterMs = retryAfterMsOf(result);
    if (retryAfterMs !== undefined) reply.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    return reply;
  }

  /** Who observes the client's notifications (server.onClientNotification). */
  readonly clientNotifications: ClientNotificationHub;

  handleNotification(notification: JsonRpcNotification, peer: Peer, caller: Caller = ANONYMOUS_CALLER): void {
    this.clientNotifications.tell(notification, caller, peer.transport);
    switch (notification.method) {
      case Method.cancelled: {
        // cancellation.mdx: unknown or finished ids, and malformed notifications, are ignored.
        const id = notification.params?.requestId;
        if (typeof id === 'string' || typeof id === 'number') {
          const controller = peer.inflight.get(id);
          if (controller) {
            this.logger.debug({ requestId: recordedId(id), reason: recordedValue(notification.params?.reason) }, 'request cancelled by client');
            controller.abort(new Error('cancelled by the client'));
          }
        }
        return;
      }
      default:
        // notifications/initialized included: requests before it are served anyway
        // (lifecycle.mdx asks clients, not servers, to wait for it).
        return;
    }
  }

  errorReply(id: JsonRpcRequest['id'] | undefined, err: unknown): Reply {
    if (err instanceof InsufficientScopeError) return { json: encodeError(id, err), status: err.httpStatus, requiredScopes: err.scopes };
    if (err instanceof RateLimitedError) return { json: encodeError(id, err), status: err.httpStatus, retryAfterSeconds: err.retryAfterSeconds };
    if (err instanceof RpcError) return { json: encodeError(id, err), status: err.httpStatus };
    try {
      this.logger.error({ err }, 'unexpected error while handling a request');
    } catch {
      // A logger that throws must not keep the answer back (a connection's reply never rejects).
    }
    const internal = new RpcError(ErrorCode.InternalError, 'Internal error');
    return { json: encodeError(id, internal), status: 500 };
  }

  /** Ends what the primitives hold open, e.g. every subscription, gracefully (server shutdown). */
  close(): void {
    for (const primitive of this.primitives) primitive.close?.();
  }

  /**
   * @internal Resumes on `peer` a legacy session another instance initialized (shared session
   * records, docs/deployment.md): the handshake's outcome, without the handshake.
   */
  resumeLegacy(peer: Peer, session: LegacySession, caller: Caller): void {
    if (peer.legacy) throw new Error('this connection is already initialized');
    peer.legacy = { ...session };
    this.options.subscriptions.addLegacyPeer(peer, caller);
  }

  /** What every primitive advertises to `era`'s clients; `extensions` and `experimental` merge one level deep. */
  private capabilities(era: Era): Record<string, unknown> {
    const capabilities: Record<string, unknown> = {};
    for (const primitive of this.primitives) {
      const added: Record<string, unknown> = {};
      primitive.advertise?.(added, era);
      for (const [key, value] of Object.entries(added)) {
        const before = capabilities[key];
        capabilities[key] = (key === 'extensions' || key === 'experimental') && isPlainObject(before) && isPlainObject(value) ? { ...before, ...value } : value;
      }
    }
    return capabilities;
  }
}

/** What `initialize` says of its client before a session holds it (what a middleware of initialize reads). */
function handshakeFacts(params: Record<string, unknown> | undefined): RequestFacts {
  const version = params?.protocolVersion;
  const info = params?.clientInfo;
  return {
    protocolVersion: typeof version === 'string' ? version : '',
    clientCapabilities: isPlainObject(params?.capabilities) ? params.capabilities : {},
    clientInfo: isPlainObject(info) ? (info as Implementation) : undefined,
  };
}

/** A legacy client that skipped the handshake learns what it missed. */
function withLegacyHint(err: unknown): unknown {
  if (!(err instanceof RpcError) || err.code !== ErrorCode.InvalidParams) return err;
  return new RpcError(err.code, `${err.message} (a client of protocol 2025-11-25 or earlier sends initialize first)`, err.data, err.httpStatus);
}
