import { encodeError, encodeResult } from '../jsonrpc/encode.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../jsonrpc/types.js';
import { isPlainObject } from '../protocol/content.js';
import { getMeta, hasModernClaim, isLogLevel, LOG_LEVELS, META, readEnvelope, type Implementation } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import { ResultEncoder, shapeResult, type CacheHints } from '../protocol/result.js';
import { MODERN_VERSIONS, negotiateLegacyVersion } from '../protocol/versions.js';
import { CallPipeline, retryAfterMsOf, type PipelineOptions } from './pipeline/index.js';
import type { CallInfo } from './context.js';
import { ScopedToolListing } from './scoped-listing.js';
import { ScopePolicy } from '../policy/auth/scope-policy.js';
import { InsufficientScopeError } from './pipeline/authorize.js';
import type { Logger } from './logger.js';
import type { Exchange, LegacySession, Peer, Reply } from './peer.js';
import type { SubscriptionHub } from './subscriptions.js';

export interface DispatcherOptions extends PipelineOptions {
  serverInfo: Implementation;
  instructions?: string;
  /** Tools per `tools/list` page. */
  pageSize: number;
  /** Cache hints on modern `tools/list` and `server/discover` results. */
  cacheHints: CacheHints;
  subscriptions: SubscriptionHub;
}

/**
 * Routes one message to its era's lifecycle. A request carrying the modern
 * `_meta` envelope is served statelessly (2026-07-28); `initialize` opens a
 * legacy session on the peer; other requests follow the peer's session.
 * Knows nothing of sockets: transports hand it messages and write its replies.
 */
export class Dispatcher {
  private readonly discoverJson: string;
  private readonly pipeline: CallPipeline;
  private readonly results: ResultEncoder;
  private readonly listing: ScopedToolListing;
  private readonly capabilities = { tools: { listChanged: true }, resources: {}, logging: {} };
  /** Open `subscriptions/listen` requests, ended gracefully by `close()`. */
  private readonly listening = new Set<() => void>();

  constructor(private readonly options: DispatcherOptions) {
    const scopePolicy = options.scopePolicy ?? new ScopePolicy();
    this.pipeline = new CallPipeline({ ...options, scopePolicy });
    this.results = new ResultEncoder(options.serverInfo);
    this.listing = new ScopedToolListing(options.registry, options.pageSize, options.cacheHints, this.results, scopePolicy);
    this.discoverJson = JSON.stringify(
      shapeResult('modern', {
        supportedVersions: [...MODERN_VERSIONS],
        capabilities: this.capabilities,
        ...(options.instructions ? { instructions: options.instructions } : {}),
        ...options.cacheHints,
      }, options.serverInfo),
    );
  }

  get logger(): Logger {
    return this.options.logger;
  }

  /** Answers a request; undefined when the request was cancelled and must get no response. */
  async handleRequest(request: JsonRpcRequest, exchange: Exchange): Promise<Reply | undefined> {
    try {
      const params = request.params;
      if (hasModernClaim(params)) return await this.modern(request, exchange);
      if (request.method === Method.initialize) return this.initialize(request, exchange);
      if (exchange.peer.legacy) return await this.legacy(request, exchange, exchange.peer.legacy);
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
    if (err instanceof RpcError) return { json: encodeError(id, err), status: err.httpStatus };
    this.logger.error({ err }, 'unexpected error while handling a request');
    const internal = new RpcError(ErrorCode.InternalError, 'Internal error');
    return { json: encodeError(id, internal), status: 500 };
  }

  // modern/legacy are plain functions (handleRequest awaits and catches for them): one async step less per request.
  private modern(request: JsonRpcRequest, exchange: Exchange): MaybeReply {
    const envelope = readEnvelope(request.params);
    switch (request.method) {
      case Method.discover:
        return ok(request, this.discoverJson);
      case Method.toolsList:
        return ok(request, this.listing.pageJson('modern', request.params?.cursor, exchange.auth));
      case Method.subscriptionsListen:
        return this.listen(request, exchange);
      case Method.resourcesList:
      case Method.resourceTemplatesList:
      case Method.resourcesRead:
        return this.resources(request, exchange, 'modern');
      case Method.toolsCall:
        return this.call(request, exchange, {
          era: 'modern',
          protocolVersion: envelope.protocolVersion,
          clientCapabilities: envelope.clientCapabilities,
          clientInfo: envelope.clientInfo,
          logLevel: envelope.logLevel,
          progressToken: progressToken(request.params),
          requestId: request.id,
        });
      default:
        // Includes the methods this revision removed: initialize, ping, logging/setLevel.
        throw methodNotFound(request.method);
    }
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
    this.options.subscriptions.addLegacyPeer(peer, exchange.auth?.scopes ? this.listing.watch(exchange.auth) : undefined);
    const result = {
      protocolVersion: version,
      capabilities: this.capabilities,
      serverInfo: this.options.serverInfo,
      ...(this.options.instructions ? { instructions: this.options.instructions } : {}),
    };
    return ok(request, JSON.stringify(result));
  }

  private legacy(request: JsonRpcRequest, exchange: Exchange, session: LegacySession): MaybeReply {
    switch (request.method) {
      case Method.ping:
        return ok(request, '{}');
      case Method.toolsList:
        return ok(request, this.listing.pageJson('legacy', request.params?.cursor, exchange.auth));
      case Method.toolsCall:
        return this.call(request, exchange, {
          era: 'legacy',
          protocolVersion: session.protocolVersion,
          clientCapabilities: session.clientCapabilities,
          clientInfo: session.clientInfo,
          logLevel: session.logLevel,
          progressToken: progressToken(request.params),
          requestId: request.id,
        });
      case Method.resourcesList:
      case Method.resourceTemplatesList:
      case Method.resourcesRead:
        return this.resources(request, exchange, 'legacy');
      case Method.setLogLevel: {
        const level = request.params?.level;
        if (!isLogLevel(level)) {
          throw new RpcError(ErrorCode.InvalidParams, `Invalid params: "level" must be one of ${LOG_LEVELS.join(', ')}`);
        }
        session.logLevel = level;
        return ok(request, '{}');
      }
      default:
        throw methodNotFound(request.method);
    }
  }

  /**
   * A long-lived request (subscriptions.mdx): acknowledged at once, then open
   * until the client cancels (no response) or the server closes it (a
   * completion result tagged with the subscription id).
   */
  private listen(request: JsonRpcRequest, exchange: Exchange): Promise<Reply | undefined> {
    const filter = request.params?.notifications;
    if (!isPlainObject(filter)) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "notifications" must be an object naming the notifications to receive');
    const { peer } = exchange;
    let end!: (reply: Reply | undefined) => void;
    const cancelled = { abort: () => end(undefined) };
    peer.inflight.add(request.id, cancelled);
    const unsubscribe = this.options.subscriptions.listen(request.id, filter, exchange.notify, exchange.auth?.scopes ? this.listing.watch(exchange.auth) : undefined);
    return new Promise((resolve) => {
      let ended = false;
      const stopWatching = exchange.onClose?.(() => end(undefined));
      end = (reply) => {
        if (ended) return;
        ended = true;
        unsubscribe();
        stopWatching?.();
        this.listening.delete(close);
        peer.inflight.remove(cancelled);
        resolve(reply);
      };
      const close = () => end(ok(request, this.results.encode('modern', { _meta: { [META.subscriptionId]: request.id } })));
      this.listening.add(close);
    });
  }

  /**
   * The resources capability serves results too large to send inline: they
   * are read by the uri of their resource_link, by the caller who made them,
   * until they expire. They are per-caller, so they are not listed.
   */
  private resources(request: JsonRpcRequest, exchange: Exchange, era: 'modern' | 'legacy'): Reply {
    const cacheHints = era === 'modern' ? { ttlMs: 0, cacheScope: 'private' } : {};
    if (request.method === Method.resourcesList) return ok(request, this.results.encode(era, { resources: [], ...cacheHints }));
    if (request.method === Method.resourceTemplatesList) return ok(request, this.results.encode(era, { resourceTemplates: [], ...cacheHints }));
    const uri = request.params?.uri;
    if (typeof uri !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "uri" must be a string');
    const stored = this.options.resultStore.get(uri, exchange.principal);
    // resources.mdx "Error Handling": unknown resources are -32602 with the uri in data.
    if (!stored) throw new RpcError(ErrorCode.InvalidParams, 'Resource not found (it may have expired)', { uri });
    const contents = [{ uri, mimeType: stored.mimeType, ...(stored.text !== undefined ? { text: stored.text } : { blob: stored.blob }) }];
    const ttlMs = Math.max(0, stored.expiresAt - Date.now());
    return ok(request, this.results.encode(era, { contents, ...(era === 'modern' ? { ttlMs, cacheScope: 'private' } : {}) }));
  }

  /** Ends every open subscription gracefully (server shutdown). */
  close(): void {
    for (const close of [...this.listening]) close();
  }

  private call(request: JsonRpcRequest, exchange: Exchange, info: CallInfo): Promise<Reply | undefined> {
    return this.pipeline.call(request.params ?? {}, info, exchange).then((outcome) => {
      if (outcome === undefined) return undefined;
      const reply = ok(request, this.results.encode(info.era, outcome as unknown as Record<string, unknown>));
      const retryAfterMs = retryAfterMsOf(outcome);
      if (retryAfterMs !== undefined) reply.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
      return reply;
    });
  }
}

type MaybeReply = Reply | undefined | Promise<Reply | undefined>;

function ok(request: JsonRpcRequest, resultJson: string): Reply {
  return { json: encodeResult(request.id, resultJson), status: 200 };
}

function methodNotFound(method: string): RpcError {
  return new RpcError(ErrorCode.MethodNotFound, `Method not found: ${method.length > 100 ? `${method.slice(0, 100)}…` : method}`);
}

function progressToken(params: Record<string, unknown> | undefined): string | number | undefined {
  const token = getMeta(params)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** A legacy client that skipped the handshake learns what it missed. */
function withLegacyHint(err: unknown): unknown {
  if (!(err instanceof RpcError) || err.code !== ErrorCode.InvalidParams) return err;
  return new RpcError(err.code, `${err.message} (a client of protocol 2025-11-25 or earlier sends initialize first)`, err.data, err.httpStatus);
}
