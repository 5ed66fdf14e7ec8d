import { encodeError } from '../jsonrpc/encode.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../jsonrpc/types.js';
import { isPlainObject } from '../protocol/content.js';
import { hasModernClaim, readEnvelope, type Implementation } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import { ResultEncoder } from '../protocol/result.js';
import { negotiateLegacyVersion, type Era } from '../protocol/versions.js';
import { InsufficientScopeError } from './pipeline/authorize.js';
import { MethodTable, methodNotFound, ok, standardPrimitives, type Primitive } from './primitives/index.js';
import { RateLimitedError } from './primitives/rate-limit.js';
import type { Logger } from './logger.js';
import type { Peer } from './peer.js';
import type { Exchange, Reply } from './exchange.js';
import type { DispatcherOptions, PrimitiveContext } from './primitive-context.js';

export type { DispatcherOptions, PrimitiveContext };



/**
 * @internal Routes one message to its era's lifecycle. A request carrying the modern
 * `_meta` envelope is served statelessly (2026-07-28); `initialize` opens a
 * legacy session on the peer; other requests follow the peer's session. Each
 * method is one lookup in the table the primitives registered into (see
 * `primitives/`): the dispatcher knows no method but `initialize`.
 * Knows nothing of sockets: transports hand it messages and write its replies.
 */
export class Dispatcher {
  private readonly methods = new MethodTable();
  private readonly primitives: Primitive[];
  private readonly legacyCapabilities: Record<string, unknown>;

  constructor(private readonly options: DispatcherOptions) {
    const results = new ResultEncoder(options.serverInfo);
    let modernCapabilities: Record<string, unknown> | undefined;
    this.primitives = [
      ...standardPrimitives({ ...options, results, capabilities: () => (modernCapabilities ??= this.capabilities('modern')) }),
      ...(options.primitives?.({ results, options }) ?? []),
    ];
    for (const primitive of this.primitives) primitive.register(this.methods);
    this.legacyCapabilities = this.capabilities('legacy');
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
        const handler = this.methods.get(request.method)?.modern;
        if (!handler) throw methodNotFound(request.method);
        return await handler(request, exchange, envelope);
      }
      if (request.method === Method.initialize) return this.initialize(request, exchange);
      const session = exchange.peer.legacy;
      if (session) {
        const handler = this.methods.get(request.method)?.legacy;
        if (!handler) throw methodNotFound(request.method);
        return await handler(request, exchange, session);
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

  handleNotification(notification: JsonRpcNotification, peer: Peer): void {
    switch (notification.method) {
      case Method.cancelled: {
        // cancellation.mdx: unknown or finished ids, and malformed notifications, are ignored.
        const id = notification.params?.requestId;
        if (typeof id === 'string' || typeof id === 'number') {
          const controller = peer.inflight.get(id);
          if (controller) {
            this.logger.debug({ requestId: id, reason: notification.params?.reason }, 'request cancelled by client');
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

  private initialize(request: JsonRpcRequest, exchange: Exchange): Reply {
    const { peer } = exchange;
    const params = request.params ?? {};
    if (peer.legacy) throw new RpcError(ErrorCode.InvalidRequest, 'Invalid Request: this connection is already initialized');
    const caps = params.capabilities;
    if (typeof params.protocolVersion !== 'string' || !isPlainObject(caps)) {
      throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: initialize needs "protocolVersion" (string) and "capabilities" (object)');
    }
    const version = negotiateLegacyVersion(params.protocolVersion);
    const info = params.clientInfo;
    peer.legacy = {
      protocolVersion: version,
      clientCapabilities: caps,
      clientInfo: isPlainObject(info) ? (info as Implementation) : undefined,
    };
    this.options.subscriptions.addLegacyPeer(peer, exchange.auth);
    const result = {
      protocolVersion: version,
      capabilities: this.legacyCapabilities,
      serverInfo: this.options.serverInfo,
      ...(this.options.instructions ? { instructions: this.options.instructions } : {}),
    };
    return ok(request, JSON.stringify(result));
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

/** A legacy client that skipped the handshake learns what it missed. */
function withLegacyHint(err: unknown): unknown {
  if (!(err instanceof RpcError) || err.code !== ErrorCode.InvalidParams) return err;
  return new RpcError(err.code, `${err.message} (a client of protocol 2025-11-25 or earlier sends initialize first)`, err.data, err.httpStatus);
}
