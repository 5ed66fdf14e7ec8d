import type { EndpointRequest } from './http-request.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { INCOMING_REQUESTS, parseMessage, type ParsedMessage } from '../jsonrpc/parse.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import { BodyAbortedError, BodyConsumedError, BodyTooLargeError } from './http-body.js';
import type { HttpAuthorization } from './http-authorization.js';
import type { EndpointParts } from './http-endpoint-parts.js';
import { serveRequest } from './http-endpoint-request.js';
import { endSession, openStream, sessionOf } from './http-endpoint-sessions.js';
import { guardProblem } from './http-guard.js';
import { rpcError, type HttpResponse } from './http-response.js';

/**
 * Streamable HTTP for both eras on one endpoint: modern requests are served
 * statelessly (2026-07-28), `initialize` opens a legacy session with
 * `Mcp-Session-Id`, a GET stream and DELETE (2025-11-25). Returns the function
 * that serves one request to the endpoint's path; it resolves once the answer
 * (or the stream it became) is done.
 */
export function createMcpEndpoint(parts: EndpointParts): (req: EndpointRequest, res: HttpResponse) => Promise<void> {
  const { guard, authorization, authThrottle } = parts;

  /** Past authorization: what the HTTP method asks; a promise only where the answer waits for something (POST). */
  const byMethod = (req: EndpointRequest, res: HttpResponse, auth: AuthInfo | undefined): Promise<void> | undefined => {
    switch (req.method) {
      case 'POST':
        return post(parts, req, res, auth);
      case 'GET':
      case 'DELETE':
        // Legacy-only methods: without sessions, 405 (streamable-http.mdx "Earlier Streamable HTTP Revisions").
        if (parts.legacySessions) return req.method === 'GET' ? openStream(parts, req, res, auth) : endSession(parts, req, res, auth);
        res.setHeader('allow', 'POST');
        rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Method Not Allowed: this endpoint serves the stateless era only', undefined, 405));
        return undefined;
      default:
        res.setHeader('allow', 'POST, GET, DELETE');
        rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Method Not Allowed', undefined, 405));
        return undefined;
    }
  };

  const authorized = async (req: EndpointRequest, res: HttpResponse, authorization: HttpAuthorization): Promise<void> => {
    if (authThrottle?.refuseIfBlocked(req, res)) return;
    // A refusal (400, 401 with its challenge, 503) is answered inside. A cached
    // token is answered synchronously: no await hop on every request.
    const pending = authorization.authenticate(req, res);
    // The caller travels as a parameter (no per-request WeakMap entries to set and look up).
    const auth = pending instanceof Promise ? await pending : pending;
    if (!auth) {
      // Wrong credentials count against the client address (http-auth-throttle.ts).
      if (res.statusCode === 401) await authThrottle?.failed(req);
      return;
    }
    await byMethod(req, res, auth);
  };

  // Not an async function: without authorization the request goes straight to its method's
  // handler, whose promise is the answer's (an async wrapper added a promise and two reactions
  // to every request). A throw is a rejection, as it was.
  return (req, res) => {
    try {
      const forbidden = guardProblem(req.headers, guard);
      if (forbidden) {
        rpcError(res, new RpcError(ErrorCode.InvalidRequest, forbidden, undefined, 403));
        return ANSWERED;
      }
      return (authorization ? authorized(req, res, authorization) : byMethod(req, res, undefined)) ?? ANSWERED;
    } catch (err) {
      return Promise.reject(err);
    }
  };
}

/** What an answer written at once resolves with. */
const ANSWERED: Promise<void> = Promise.resolve();

/** POST: one message; a request is answered, a notification or a response accepted (202). */
async function post(parts: EndpointParts, req: EndpointRequest, res: HttpResponse, auth: AuthInfo | undefined): Promise<void> {
  const { server, maxBodyBytes: maxBody, sessions } = parts;
  const type = req.headers['content-type'];
  if (typeof type !== 'string' || !/^application\/json\b/i.test(type)) {
    return rpcError(res, new RpcError(ErrorCode.InvalidRequest, 'Unsupported Media Type: send Content-Type: application/json', undefined, 415));
  }
  let parsed: ParsedMessage;
  try {
    parsed = parseMessage(await req.readBody(maxBody), INCOMING_REQUESTS);
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
  // Awaited rather than returned: an async function resolving with a promise takes two reactions more.
  if (parsed.kind === 'request') return await serveRequest(parts, req, res, parsed.message, auth);
  const session = await sessionOf(parts, req, res, auth);
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
}
