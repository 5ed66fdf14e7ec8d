import type { EndpointRequest } from './http-request.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../jsonrpc/types.js';
import { callerKey } from '../policy/auth/caller.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import { SESSION_HEADER } from '../protocol/header-params.js';
import { isLegacyVersion } from '../protocol/versions.js';
import { clientAddressKey } from './client-address.js';
import type { EndpointParts } from './http-endpoint-parts.js';
import { unrefTimer } from './timers.js';
import { rpcError, type HttpResponse } from './http-response.js';
import { HttpSession } from './http-sessions.js';
import { startSse, writeSseKeepAlive } from './sse.js';
import type { StreamRefusal } from './stream-slots.js';

// The legacy era's session at the endpoint (2025-11-25 "Session Management"): finding the session
// a request names, its GET stream, DELETE, and the slots every long-lived stream holds.

/**
 * The legacy session a request names. Undefined: it names none; null: the
 * request was answered here (unknown session → 404, bad version → 400).
 */
export async function sessionOf(
  parts: EndpointParts,
  req: EndpointRequest,
  res: HttpResponse,
  auth: AuthInfo | undefined,
  id?: JsonRpcRequest['id'],
): Promise<HttpSession | undefined | null> {
  const { server, sessions } = parts;
  const sessionId = req.headers[SESSION_HEADER];
  // Without legacy sessions the header is ignored (streamable-http.mdx "Earlier Streamable HTTP Revisions").
  if (sessionId === undefined || !parts.legacySessions) return undefined;
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
    rpcError(res, new RpcError(ErrorCode.InvalidRequest, `Bad Request: unsupported MCP-Protocol-Version ${String(version).slice(0, 40)}`, undefined, 400), id);
    return null;
  }
  return session;
}

/** Legacy GET: the session's stream for server-initiated messages. */
export async function openStream(parts: EndpointParts, req: EndpointRequest, res: HttpResponse, auth: AuthInfo | undefined): Promise<void> {
  const principal = keyOf(auth);
  const session = await sessionOf(parts, req, res, auth);
  if (session === null) return;
  if (!session) {
    res.setHeader('allow', 'POST');
    return void rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Method Not Allowed: GET needs a legacy Mcp-Session-Id', undefined, 405));
  }
  if (!acceptsEventStream(req))
    return void rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Not Acceptable: GET requires Accept: text/event-stream', undefined, 406));
  if (session.stream) return void rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Conflict: this session already has an open stream', undefined, 409));
  if (!takeStreamSlot(parts, req, res, principal)) return;
  startSse(res, { [SESSION_HEADER]: session.id });
  // The session's connection sends what the server says on its own here while it is open.
  session.stream = res;
  const timer = setInterval(() => writeSseKeepAlive(res), parts.keepAliveMs);
  unrefTimer(timer);
  res.once('close', () => {
    clearInterval(timer);
    if (session.stream === res) session.stream = undefined;
  });
}

/**
 * A slot for a long-lived stream, held until the response closes; or the
 * refusal, answered here: 429 when the caller holds its share (only it can
 * free one), 503 when the server is full; both with Retry-After.
 */
export function takeStreamSlot(
  parts: EndpointParts,
  req: EndpointRequest,
  res: HttpResponse,
  principal: string | undefined,
  id?: JsonRpcRequest['id'],
): boolean {
  const slot = parts.streams.take(principal === undefined ? `address ${clientAddressKey(req, parts.trustProxy)}` : `principal ${principal}`);
  if (typeof slot === 'function') {
    res.once('close', slot);
    return true;
  }
  res.setHeader('retry-after', '5');
  rpcError(res, streamRefusal(slot), id);
  return false;
}

/** Legacy DELETE: ends the session the request names, if it is the caller's. */
export async function endSession(parts: EndpointParts, req: EndpointRequest, res: HttpResponse, auth: AuthInfo | undefined): Promise<void> {
  const { server, sessions } = parts;
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
}

/** The key a caller's sessions and stream slots are held under (callerKey); undefined without authorization. */
export function keyOf(auth: AuthInfo | undefined): string | undefined {
  return auth && callerKey(auth);
}

function streamRefusal(why: StreamRefusal): RpcError {
  return why === 'caller'
    ? new RpcError(ErrorCode.InternalError, 'Too Many Requests: this caller has as many open streams as it may; close one first', undefined, 429)
    : new RpcError(ErrorCode.InternalError, 'Service Unavailable: too many open streams; retry later', undefined, 503);
}

function acceptsEventStream(req: EndpointRequest): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes('text/event-stream') || accept.includes('*/*');
}
