import type { EndpointRequest } from './http-request.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../jsonrpc/types.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import { SESSION_HEADER } from '../protocol/header-params.js';
import { hasModernClaim } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import { MODERN_VERSIONS } from '../protocol/versions.js';
import type { ReceiveOptions, Reply, ServerConnection } from '../server/connection.js';
import type { EndpointParts } from './http-endpoint-parts.js';
import { unrefTimer } from './timers.js';
import { keyOf, sessionOf, takeStreamSlot } from './http-endpoint-sessions.js';
import { checkStandardHeaders } from './http-headers.js';
import { rpcError, send, type HttpResponse } from './http-response.js';
import { HttpSession } from './http-sessions.js';
import { startSse, writeSseEvent, writeSseKeepAlive } from './sse.js';

/**
 * One JSON-RPC request: a modern one served statelessly, `initialize` opening a legacy session
 * (its id sent once the answer says it opened), any other in the session it names.
 */
export async function serveRequest(
  parts: EndpointParts,
  req: EndpointRequest,
  res: HttpResponse,
  message: JsonRpcRequest,
  auth: AuthInfo | undefined,
): Promise<void> {
  const { server, sessions, authorization } = parts;
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
    if (message.method === Method.subscriptionsListen && !takeStreamSlot(parts, req, res, keyOf(auth), message.id)) return;
    connection = server.connect({ transport: 'http', caller: auth });
  } else if (!parts.legacySessions) {
    return rpcError(res, statelessOnly(message), message.id);
  } else if (message.method === Method.initialize) {
    if (sessions.full) {
      res.setHeader('retry-after', '30');
      return rpcError(res, new RpcError(ErrorCode.InternalError, 'Service Unavailable: too many sessions; retry later', undefined, 503), message.id);
    }
    opening = new HttpSession(server, keyOf(auth), auth);
    connection = opening.connection;
  } else {
    const found = await sessionOf(parts, req, res, auth, message.id);
    if (found === null) return;
    session = found;
    connection = session?.connection ?? server.connect({ transport: 'http', caller: auth });
  }
  const reply = await dispatchWithStream(parts.keepAliveMs, req, res, message, connection, auth);
  const opened = opening && reply?.status === 200 && connection.protocolVersion !== undefined;
  // An initialize that failed, or whose client left before its answer, opens nothing: its connection ends here.
  if (opening && !opened) connection.close();
  if (!reply) return;
  // Made only when there is a header to add: most answers have none.
  let extra: Record<string, string> | undefined;
  if (opened) {
    extra = { [SESSION_HEADER]: sessions.add(opening!).id };
    // Before the answer: the client's next request may reach another instance.
    await sessions.share(opening!);
  }
  // 403 insufficient_scope: the challenge names every scope the call needs (authorization/index "Scope Challenge Handling").
  if (reply.requiredScopes && authorization) (extra ??= {})['www-authenticate'] = authorization.insufficientScope(reply.requiredScopes);
  send(res, reply, extra);
}

/** Runs the request; switches the response to SSE the moment the call sends a notification. */
async function dispatchWithStream(
  keepAliveMs: number,
  req: EndpointRequest,
  res: HttpResponse,
  message: JsonRpcRequest,
  connection: ServerConnection,
  auth: AuthInfo | undefined,
): Promise<Reply | undefined> {
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const gone = () => res.destroyed && !res.writableFinished;
  const facts: ReceiveOptions = {
    headers: req.headers,
    // The connecting socket (a proxy's, behind one): the server span's client.address and client.port.
    remoteAddress: req.remoteAddress,
    remotePort: req.remotePort,
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
        unrefTimer(keepAlive);
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
}

/** The answer to a legacy-era request where only the stateless era is served: the versions there are, so that a client that speaks both retries in it. */
function statelessOnly(message: JsonRpcRequest): RpcError {
  const asked = (message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  return new RpcError(
    ErrorCode.UnsupportedProtocolVersion,
    'Unsupported protocol version: this endpoint serves only the stateless era (2026-07-28); legacy sessions need a server that keeps them',
    { supported: [...MODERN_VERSIONS], ...(typeof asked === 'string' ? { requested: asked.slice(0, 40) } : {}) },
    400,
  );
}
