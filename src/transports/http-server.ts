import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SESSION_HEADER } from '../protocol/header-params.js';
import { encodeError } from '../jsonrpc/encode.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { INCOMING_REQUESTS, parseMessage, type ParsedMessage } from '../jsonrpc/parse.js';
import type { JsonRpcRequest } from '../jsonrpc/types.js';
import { hasModernClaim } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import { isLegacyVersion } from '../protocol/versions.js';
import { Peer, type Exchange, type Reply } from '../server/peer.js';
import type { ToolServer } from '../server/server.js';
import { BodyAbortedError, BodyTooLargeError, readBody } from './http-body.js';
import { clientAddressKey } from './client-address.js';
import { AuthFailureThrottle } from './http-auth-throttle.js';
import { ConnectionGate } from './http-connections.js';
import { nodeServerOptions, resolveHttpLimits, type HttpLimitOptions } from './http-limits.js';
import { StreamSlots, type StreamRefusal } from './stream-slots.js';
import { defaultGuard, guardProblem, type HostGuardOptions } from './http-guard.js';
import { checkStandardHeaders } from './http-headers.js';
import { SessionStore, type HttpSession } from './http-sessions.js';
import { createHttpAuthorization, type AuthenticateHook, type HttpAuthorization } from './http-authorization.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import type { ResourceServerOptions } from '../policy/auth/options.js';
import { startSse, writeSseEvent, writeSseKeepAlive } from './sse.js';
import { drainHttp, endDrainedConnections, type HttpCloseOptions } from './http-drain.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './stdio-server.js';

export interface HttpServeOptions extends HostGuardOptions, HttpLimitOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The MCP endpoint path (default "/mcp"). */
  path?: string;
  /** Largest accepted request body (default 4 MiB → 413). */
  maxBodyBytes?: number;
  /** Legacy sessions unused this long are ended (default 30 min). */
  sessionIdleMs?: number;
  /** Live legacy sessions at most (default 1,000); beyond it `initialize` gets 503. */
  maxSessions?: number;
  /** Interval of keep-alive comments on long-lived streams (default 25 s). */
  keepAliveMs?: number;
  /**
   * Who is calling. Return an identifier (it becomes `ctx.principal`, keys rate
   * limits, audit records and stored results), an AuthInfo (`{ id, scopes,
   * subject, clientId, claims }`: `id` is the principal, `scopes` are then
   * enforced), or undefined to answer 401. Runs for every request; a legacy
   * session stays bound to its principal. Not together with `auth`.
   */
  authenticate?: AuthenticateHook;
  /**
   * OAuth 2.1 resource server and/or API keys (`server.auth` in the config):
   * bearer tokens verified for every request, Protected Resource Metadata
   * served at /.well-known/oauth-protected-resource[/path].
   */
  auth?: ResourceServerOptions;
}

export interface HttpServerHandle {
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Stops serving: at once, or gracefully with `{ graceMs }` (see HttpCloseOptions). */
  close(options?: HttpCloseOptions): Promise<void>;
}

/**
 * Streamable HTTP for both eras on one endpoint: modern requests are served
 * statelessly (2026-07-28), `initialize` opens a legacy session with
 * `Mcp-Session-Id`, a GET stream and DELETE (2025-11-25).
 */
export async function serveHttp(toolServer: ToolServer, options: HttpServeOptions = {}): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const guard: HostGuardOptions = { ...defaultGuard(host), ...definedOnly(options) };
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const keepAliveMs = options.keepAliveMs ?? 25_000;
  const sessions = new SessionStore(options.sessionIdleMs ?? 30 * 60_000, options.maxSessions ?? 1_000);
  const dispatcher = toolServer.dispatcher;
  const logger = toolServer.logger;
  const limits = resolveHttpLimits(options);
  const connections = new ConnectionGate(limits.maxConnections, limits.maxConnectionsPerAddress);
  const streams = new StreamSlots(limits.maxStreams, limits.maxStreamsPerPrincipal);
  const authThrottle = (options.authenticate || options.auth) && limits.authFailureLimit ? new AuthFailureThrottle(limits.authFailureLimit, limits.trustProxy) : undefined;
  // Set once the server listens (the default resource URI is its URL); requests only come after.
  let authorization: HttpAuthorization | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const route = pathOf(req.url);
    if (route !== path) return authorization?.serveMetadata(route, req, res) ? undefined : plain(res, 404, 'Not Found');
    const forbidden = guardProblem(req.headers, guard);
    if (forbidden) return rpcError(res, new RpcError(ErrorCode.InvalidRequest, forbidden, undefined, 403));
    // The caller travels as a parameter (no per-request WeakMap entries to set and look up).
    let auth: AuthInfo | undefined;
    if (authorization) {
      if (authThrottle?.refuseIfBlocked(req, res)) return;
      // A refusal (400, 401 with its challenge, 503) is answered inside. A cached
      // token is answered synchronously: no await hop on every request.
      const pending = authorization.authenticate(req, res);
      auth = pending instanceof Promise ? await pending : pending;
      if (!auth) {
        // Wrong credentials count against the client address (http-auth-throttle.ts).
        if (res.statusCode === 401) await authThrottle?.failed(req);
        return;
      }
    }
    switch (req.method) {
      case 'POST':
        return post(req, res, auth);
      case 'GET':
        return openStream(req, res, auth?.id);
      case 'DELETE':
        return endSession(req, res, auth?.id);
      default:
        res.setHeader('allow', 'POST, GET, DELETE');
        return rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Method Not Allowed', undefined, 405));
    }
  };

  const post = async (req: IncomingMessage, res: ServerResponse, auth: AuthInfo | undefined): Promise<void> => {
    const type = req.headers['content-type'];
    if (!type || !/^application\/json\b/i.test(type)) {
      return rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Unsupported Media Type: send Content-Type: application/json', undefined, 415));
    }
    let parsed: ParsedMessage;
    try {
      parsed = parseMessage(await readBody(req, maxBody), INCOMING_REQUESTS);
    } catch (err) {
      if (err instanceof BodyAbortedError) return;
      if (err instanceof BodyTooLargeError) {
        // Close rather than read the rest of a body we will never use.
        res.setHeader('connection', 'close');
        return rpcError(res, new RpcError(ErrorCode.InvalidRequest, `Payload Too Large: the body exceeds ${maxBody} bytes`, undefined, 413));
      }
      if (err instanceof RpcError) return rpcError(res, new RpcError(err.code, err.message, undefined, 400), (err.data as { id?: string | number })?.id);
      throw err;
    }
    if (parsed.kind === 'request') return request(req, res, parsed.message, auth);
    const session = sessionOf(req, res, auth?.id);
    if (session === null) return;
    if (parsed.kind === 'notification') dispatcher.handleNotification(parsed.message, session?.peer ?? new Peer('http'));
    // A response answers a request the server sent on one of the session's streams. Without a
    // session there is no such request: a modern client MUST NOT send responses (streamable-http.mdx).
    else if (session) session.peer.handleResponse(parsed.message);
    else return rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Invalid Request: clients must not send JSON-RPC responses, except to a legacy session (Mcp-Session-Id) that asked', undefined, 400));
    res.writeHead(202).end();
  };

  const request = async (req: IncomingMessage, res: ServerResponse, message: JsonRpcRequest, auth: AuthInfo | undefined): Promise<void> => {
    let peer: Peer;
    let session: HttpSession | undefined;
    if (hasModernClaim(message.params)) {
      // Modern: no sessions; Mcp-Session-Id is ignored (streamable-http.mdx "Backward Compatibility").
      try {
        checkStandardHeaders(req.headers, message);
      } catch (err) {
        return rpcError(res, err as RpcError, message.id);
      }
      if (message.method === Method.subscriptionsListen && !takeStreamSlot(req, res, auth?.id, message.id)) return;
      peer = new Peer('http');
    } else if (message.method === Method.initialize) {
      if (sessions.full) {
        res.setHeader('retry-after', '30');
        return rpcError(res, new RpcError(ErrorCode.InternalError, 'Service Unavailable: too many sessions; retry later', undefined, 503), message.id);
      }
      peer = new Peer('http');
    } else {
      const found = sessionOf(req, res, auth?.id, message.id);
      if (found === null) return;
      session = found;
      peer = session?.peer ?? new Peer('http');
    }
    const reply = await dispatchWithStream(req, res, message, peer, auth);
    if (!reply) return;
    const extra: Record<string, string> = {};
    if (message.method === Method.initialize && !session && peer.legacy && reply.status === 200) {
      extra[SESSION_HEADER] = sessions.add(peer, auth?.id).id;
    }
    // 403 insufficient_scope: the challenge names every scope the call needs (authorization/index "Scope Challenge Handling").
    if (reply.requiredScopes && authorization) extra['www-authenticate'] = authorization.insufficientScope(reply.requiredScopes);
    send(res, reply, extra);
  };

  /** Runs the request; switches the response to SSE the moment the call sends a notification. */
  const dispatchWithStream = async (req: IncomingMessage, res: ServerResponse, message: JsonRpcRequest, peer: Peer, auth: AuthInfo | undefined): Promise<Reply | undefined> => {
    let keepAlive: NodeJS.Timeout | undefined;
    const gone = () => res.destroyed && !res.writableFinished;
    const exchange: Exchange = {
      peer,
      headers: req.headers,
      principal: auth?.id,
      auth,
      messageBytes: Number(req.headers['content-length']) || undefined,
      // Closing the response stream is the cancellation signal (streamable-http.mdx "Cancellation").
      onClose: (listener) => {
        const onClose = () => {
          if (!res.writableFinished) listener(new Error('client closed the response stream'));
        };
        res.once('close', onClose);
        return () => res.off('close', onClose);
      },
      notify: (json) => {
        if (gone() || res.writableEnded) return;
        if (!res.headersSent) {
          startSse(res);
          // Long calls and subscriptions stay open: keep intermediaries from timing them out.
          keepAlive = setInterval(() => writeSseKeepAlive(res), keepAliveMs);
          keepAlive.unref();
        }
        writeSseEvent(res, json);
      },
    };
    const reply = await dispatcher.handleRequest(message, exchange);
    clearInterval(keepAlive);
    if (!reply || gone()) return undefined;
    if (res.headersSent) {
      writeSseEvent(res, reply.json);
      res.end();
      return undefined;
    }
    return reply;
  };

  /**
   * The legacy session a request names. Undefined: it names none; null: the
   * request was answered here (unknown session → 404, bad version → 400).
   */
  const sessionOf = (req: IncomingMessage, res: ServerResponse, principal: string | undefined, id?: JsonRpcRequest['id']): HttpSession | undefined | null => {
    const sessionId = req.headers[SESSION_HEADER];
    if (sessionId === undefined) return undefined;
    const found = typeof sessionId === 'string' ? sessions.touch(sessionId) : undefined;
    // A session belongs to the caller who opened it; to anyone else it does not exist.
    const session = found && found.principal === principal ? found : undefined;
    if (!session) {
      rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Not Found: unknown or expired session; send initialize again', undefined, 404), id);
      return null;
    }
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !isLegacyVersion(version)) {
      rpcError(res, new RpcError(ErrorCode.InvalidRequest, `Bad Request: unsupported MCP-Protocol-Version ${String(version).slice(0, 40)}`, undefined, 400), id);
      return null;
    }
    return session;
  };

  /** Legacy GET: the session's stream for server-initiated messages. */
  const openStream = (req: IncomingMessage, res: ServerResponse, principal: string | undefined): void => {
    const session = sessionOf(req, res, principal);
    if (session === null) return;
    if (!session) {
      res.setHeader('allow', 'POST');
      return rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Method Not Allowed: GET needs a legacy Mcp-Session-Id', undefined, 405));
    }
    if (!acceptsEventStream(req)) return rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Not Acceptable: GET requires Accept: text/event-stream', undefined, 406));
    if (session.stream) return rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Conflict: this session already has an open stream', undefined, 409));
    if (!takeStreamSlot(req, res, principal)) return;
    startSse(res, { [SESSION_HEADER]: session.id });
    session.stream = res;
    session.peer.push = (json) => writeSseEvent(res, json);
    const timer = setInterval(() => writeSseKeepAlive(res), keepAliveMs);
    timer.unref();
    res.once('close', () => {
      clearInterval(timer);
      if (session.stream === res) {
        session.stream = undefined;
        session.peer.push = undefined;
      }
    });
  };

  /**
   * A slot for a long-lived stream, held until the response closes; or the
   * refusal, answered here: 429 when the caller holds its share (only it can
   * free one), 503 when the server is full; both with Retry-After.
   */
  const takeStreamSlot = (req: IncomingMessage, res: ServerResponse, principal: string | undefined, id?: JsonRpcRequest['id']): boolean => {
    const slot = streams.take(principal === undefined ? `address ${clientAddressKey(req, limits.trustProxy)}` : `principal ${principal}`);
    if (typeof slot === 'function') {
      res.once('close', slot);
      return true;
    }
    res.setHeader('retry-after', '5');
    rpcError(res, streamRefusal(slot), id);
    return false;
  };

  const endSession = (req: IncomingMessage, res: ServerResponse, principal: string | undefined): void => {
    const sessionId = req.headers[SESSION_HEADER];
    if (typeof sessionId !== 'string') {
      res.setHeader('allow', 'POST');
      return rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Method Not Allowed: DELETE needs a legacy Mcp-Session-Id', undefined, 405));
    }
    // As for POST and GET: a session belongs to the caller who opened it; to anyone else it does not exist.
    const session = sessions.touch(sessionId);
    if (!session || session.principal !== principal || !sessions.end(sessionId)) return rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Not Found: unknown or expired session', undefined, 404));
    res.writeHead(200).end();
  };

  const server = createServer(nodeServerOptions(limits), (req, res) => {
    // A connection over a cap was answered 503 when it opened; what it sent anyway is dropped.
    if (connections.isRefused(req.socket)) return;
    handle(req, res).catch((err) => {
      try {
        logger.error({ err }, 'HTTP request failed');
      } catch {
        // A logger that throws must not keep the answer back.
      }
      if (!res.headersSent) rpcError(res, new RpcError(ErrorCode.InternalError, 'Internal error', undefined, 500));
      else res.end();
    });
  });
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  connections.attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  try {
    authorization = createHttpAuthorization({ ...options, host }, `http://${urlHost}:${port}${path}`, path, logger);
  } catch (err) {
    await new Promise((resolve) => server.close(resolve));
    throw err;
  }
  return {
    url: `http://${urlHost}:${port}${path}`,
    port,
    server,
    close: async (options: HttpCloseOptions = {}) => {
      // Graceful: stop accepting and let the calls in flight answer first (http-drain.ts).
      const drained = options.graceMs === undefined ? undefined : await drainHttp(server, toolServer, options.graceMs);
      // End subscriptions with their completion result, give the writes a turn, then drop connections.
      toolServer.endSubscriptions();
      await new Promise((r) => setImmediate(r));
      sessions.close();
      if (drained) return endDrainedConnections(server, drained.closed);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function streamRefusal(why: StreamRefusal): RpcError {
  return why === 'caller'
    ? new RpcError(ErrorCode.InternalError, 'Too Many Requests: this caller has as many open streams as it may; close one first', undefined, 429)
    : new RpcError(ErrorCode.InternalError, 'Service Unavailable: too many open streams; retry later', undefined, 503);
}

function send(res: ServerResponse, reply: Reply, extraHeaders: Record<string, string> = {}): void {
  // A rate-limited call's answer says when to come back (an SSE answer cannot: its headers are sent).
  if (reply.retryAfterSeconds !== undefined) extraHeaders = { ...extraHeaders, 'retry-after': String(reply.retryAfterSeconds) };
  res.writeHead(reply.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply.json), ...extraHeaders });
  res.end(reply.json);
}

function rpcError(res: ServerResponse, err: RpcError, id?: JsonRpcRequest['id']): void {
  send(res, { json: encodeError(id, err), status: err.httpStatus });
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
}

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

function acceptsEventStream(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes('text/event-stream') || accept.includes('*/*');
}

function definedOnly(options: HostGuardOptions): HostGuardOptions {
  const out: HostGuardOptions = {};
  if (options.allowedHosts !== undefined) out.allowedHosts = options.allowedHosts;
  if (options.allowedOrigins !== undefined) out.allowedOrigins = options.allowedOrigins;
  return out;
}
