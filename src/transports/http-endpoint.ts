import type { IncomingMessage } from 'node:http';
import { SESSION_HEADER } from '../protocol/header-params.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { INCOMING_REQUESTS, parseMessage, type ParsedMessage } from '../jsonrpc/parse.js';
import type { JsonRpcRequest } from '../jsonrpc/types.js';
import { hasModernClaim } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import { isLegacyVersion } from '../protocol/versions.js';
import type { ReceiveOptions, Reply, ServerConnection } from '../server/connection.js';
import type { ToolServer } from '../server/server.js';
import { callerKey } from '../policy/auth/caller.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import { BodyAbortedError, BodyConsumedError, BodyTooLargeError, readBody } from './http-body.js';
import { clientAddressKey } from './client-address.js';
import type { AuthFailureThrottle } from './http-auth-throttle.js';
import type { HttpAuthorization } from './http-authorization.js';
import { guardProblem, type HostGuardOptions } from './http-guard.js';
import { checkStandardHeaders } from './http-headers.js';
import { rpcError, send, type HttpResponse } from './http-response.js';
import { HttpSession, type SessionStore } from './http-sessions.js';
import { startSse, writeSseEvent, writeSseKeepAlive } from './sse.js';
import type { StreamRefusal, StreamSlots } from './stream-slots.js';

/** What one MCP endpoint serves with: built once by createHttpHandler (http-handler.ts). */
export interface EndpointParts {
  /** Served through its public connections (`server.connect`): one per legacy session, one per modern request. */
  server: ToolServer;
  guard: HostGuardOptions;
  maxBodyBytes: number;
  keepAliveMs: number;
  trustProxy: boolean;
  sessions: SessionStore;
  streams: StreamSlots;
  authorization?: HttpAuthorization;
  authThrottle?: AuthFailureThrottle;
}

/**
 * Streamable HTTP for both eras on one endpoint: modern requests are served
 * statelessly (2026-07-28), `initialize` opens a legacy session with
 * `Mcp-Session-Id`, a GET stream and DELETE (2025-11-25). Returns the function
 * that serves one request to the endpoint's path; it resolves once the answer
 * (or the stream it became) is done.
 */
export function createMcpEndpoint(parts: EndpointParts): (req: IncomingMessage, res: HttpResponse) => Promise<void> {
  const { server, guard, maxBodyBytes: maxBody, keepAliveMs, sessions, streams, authorization, authThrottle } = parts;

  const serve = async (req: IncomingMessage, res: HttpResponse): Promise<void> => {
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
        return openStream(req, res, auth);
      case 'DELETE':
        return endSession(req, res, auth);
      default:
        res.setHeader('allow', 'POST, GET, DELETE');
        return rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Method Not Allowed', undefined, 405));
    }
  };

  const post = async (req: IncomingMessage, res: HttpResponse, auth: AuthInfo | undefined): Promise<void> => {
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
      if (err instanceof BodyConsumedError)
        throw new Error('the request body was read before the MCP handler and left nothing usable in req.body: mount the handler before body parsers');
      throw err;
    }
    if (parsed.kind === 'request') return request(req, res, parsed.message, auth);
    const session = await sessionOf(req, res, auth);
    if (session === null) return;
    if (parsed.kind === 'notification') (session?.connection ?? server.connect({ transport: 'http', caller: auth })).receive(parsed.message);
    // A response answers a request the server sent on one of the session's streams. Without a
    // session there is no such request: a modern client MUST NOT send responses (streamable-http.mdx).
    else if (session) {
      session.connection.receive(parsed.message);
      // It may answer a request another instance sent (shared sessions): that instance gets it too.
      sessions.relay(session.id, parsed.message as unknown as Record<string, unknown>);
    } else
      return rpcError(
        res,
        new RpcError(
          ErrorCode.InvalidRequest,
          'Invalid Request: clients must not send JSON-RPC responses, except to a legacy session (Mcp-Session-Id) that asked',
          undefined,
          400,
        ),
      );
    res.writeHead(202).end();
  };

  const request = async (req: IncomingMessage, res: HttpResponse, message: JsonRpcRequest, auth: AuthInfo | undefined): Promise<void> => {
    let connection: ServerConnection;
    let session: HttpSession | undefined;
    let opening: HttpSession | undefined;
    if (hasModernClaim(message.params)) {
      // Modern: no sessions; Mcp-Session-Id is ignored (streamable-http.mdx "Backward Compatibility").
      try {
        checkStandardHeaders(req.headers, message);
      } catch (err) {
        return rpcError(res, err as RpcError, message.id);
      }
      if (message.method === Method.subscriptionsListen && !takeStreamSlot(req, res, keyOf(auth), message.id)) return;
      connection = server.connect({ transport: 'http', caller: auth });
    } else if (message.method === Method.initialize) {
      if (sessions.full) {
        res.setHeader('retry-after', '30');
        return rpcError(res, new RpcError(ErrorCode.InternalError, 'Service Unavailable: too many sessions; retry later', undefined, 503), message.id);
      }
      opening = new HttpSession(server, keyOf(auth), auth);
      connection = opening.connection;
    } else {
      const found = await sessionOf(req, res, auth, message.id);
      if (found === null) return;
      session = found;
      connection = session?.connection ?? server.connect({ transport: 'http', caller: auth });
    }
    const reply = await dispatchWithStream(req, res, message, connection, auth);
    const opened = opening && reply?.status === 200 && connection.protocolVersion !== undefined;
    // An initialize that failed, or whose client left before its answer, opens nothing: its connection ends here.
    if (opening && !opened) connection.close();
    if (!reply) return;
    const extra: Record<string, string> = {};
    if (opened) {
      extra[SESSION_HEADER] = sessions.add(opening!).id;
      // Before the answer: the client's next request may reach another instance.
      await sessions.share(opening!);
    }
    // 403 insufficient_scope: the challenge names every scope the call needs (authorization/index "Scope Challenge Handling").
    if (reply.requiredScopes && authorization) extra['www-authenticate'] = authorization.insufficientScope(reply.requiredScopes);
    send(res, reply, extra);
  };

  /** Runs the request; switches the response to SSE the moment the call sends a notification. */
  const dispatchWithStream = async (
    req: IncomingMessage,
    res: HttpResponse,
    message: JsonRpcRequest,
    connection: ServerConnection,
    auth: AuthInfo | undefined,
  ): Promise<Reply | undefined> => {
    let keepAlive: NodeJS.Timeout | undefined;
    const gone = () => res.destroyed && !res.writableFinished;
    const facts: ReceiveOptions = {
      headers: req.headers,
      // The connecting socket (a proxy's, behind one): the server span's client.address and client.port.
      remoteAddress: req.socket.remoteAddress,
      remotePort: req.socket.remotePort,
      // Every request is authenticated on its own (a session's token may be refreshed).
      caller: auth,
      messageBytes: Number(req.headers['content-length']) || undefined,
      // Closing the response stream is the cancellation signal (streamable-http.mdx "Cancellation").
      onClose: (listener) => {
        const onClose = () => {
          if (!res.writableFinished) listener(new Error('client closed the response stream'));
        };
        res.once('close', onClose);
        return () => res.off('close', onClose);
      },
      send: (json) => {
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
    const reply = await connection.receive(message, facts);
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
  const sessionOf = async (
    req: IncomingMessage,
    res: HttpResponse,
    auth: AuthInfo | undefined,
    id?: JsonRpcRequest['id'],
  ): Promise<HttpSession | undefined | null> => {
    const sessionId = req.headers[SESSION_HEADER];
    if (sessionId === undefined) return undefined;
    const principal = keyOf(auth);
    // Here, or resumed from the shared records when another instance opened it (docs/deployment.md).
    const found = typeof sessionId === 'string' ? await sessions.find(sessionId, principal, () => new HttpSession(server, principal, auth)) : undefined;
    // A session belongs to the caller who opened it; to anyone else it does not exist.
    const session = found && found.principal === principal ? found : undefined;
    if (!session) {
      rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Not Found: unknown or expired session; send initialize again', undefined, 404), id);
      return null;
    }
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !isLegacyVersion(version)) {
      rpcError(
        res,
        new RpcError(ErrorCode.InvalidRequest, `Bad Request: unsupported MCP-Protocol-Version ${String(version).slice(0, 40)}`, undefined, 400),
        id,
      );
      return null;
    }
    return session;
  };

  /** Legacy GET: the session's stream for server-initiated messages. */
  const openStream = async (req: IncomingMessage, res: HttpResponse, auth: AuthInfo | undefined): Promise<void> => {
    const principal = keyOf(auth);
    const session = await sessionOf(req, res, auth);
    if (session === null) return;
    if (!session) {
      res.setHeader('allow', 'POST');
      return void rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Method Not Allowed: GET needs a legacy Mcp-Session-Id', undefined, 405));
    }
    if (!acceptsEventStream(req))
      return void rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Not Acceptable: GET requires Accept: text/event-stream', undefined, 406));
    if (session.stream) return void rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Conflict: this session already has an open stream', undefined, 409));
    if (!takeStreamSlot(req, res, principal)) return;
    startSse(res, { [SESSION_HEADER]: session.id });
    // The session's connection sends what the server says on its own here while it is open.
    session.stream = res;
    const timer = setInterval(() => writeSseKeepAlive(res), keepAliveMs);
    timer.unref();
    res.once('close', () => {
      clearInterval(timer);
      if (session.stream === res) session.stream = undefined;
    });
  };

  /**
   * A slot for a long-lived stream, held until the response closes; or the
   * refusal, answered here: 429 when the caller holds its share (only it can
   * free one), 503 when the server is full; both with Retry-After.
   */
  const takeStreamSlot = (req: IncomingMessage, res: HttpResponse, principal: string | undefined, id?: JsonRpcRequest['id']): boolean => {
    const slot = streams.take(principal === undefined ? `address ${clientAddressKey(req, parts.trustProxy)}` : `principal ${principal}`);
    if (typeof slot === 'function') {
      res.once('close', slot);
      return true;
    }
    res.setHeader('retry-after', '5');
    rpcError(res, streamRefusal(slot), id);
    return false;
  };

  const endSession = async (req: IncomingMessage, res: HttpResponse, auth: AuthInfo | undefined): Promise<void> => {
    const principal = keyOf(auth);
    const sessionId = req.headers[SESSION_HEADER];
    if (typeof sessionId !== 'string') {
      res.setHeader('allow', 'POST');
      return void rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Method Not Allowed: DELETE needs a legacy Mcp-Session-Id', undefined, 405));
    }
    // As for POST and GET: a session belongs to the caller who opened it; to anyone else it does not exist.
    const session = await sessions.find(sessionId, principal, () => new HttpSession(server, principal, auth));
    if (!session || session.principal !== principal || !(await sessions.end(sessionId)))
      return void rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Not Found: unknown or expired session', undefined, 404));
    res.writeHead(200).end();
  };

  return serve;
}

/** The key a caller's sessions and stream slots are held under (callerKey); undefined without authorization. */
function keyOf(auth: AuthInfo | undefined): string | undefined {
  return auth && callerKey(auth);
}

function streamRefusal(why: StreamRefusal): RpcError {
  return why === 'caller'
    ? new RpcError(ErrorCode.InternalError, 'Too Many Requests: this caller has as many open streams as it may; close one first', undefined, 429)
    : new RpcError(ErrorCode.InternalError, 'Service Unavailable: too many open streams; retry later', undefined, 503);
}

function acceptsEventStream(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes('text/event-stream') || accept.includes('*/*');
}
