import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { ResourceServerOptions } from '../policy/auth/options.js';
import type { ToolServer } from '../server/server.js';
import { AuthFailureThrottle } from './http-auth-throttle.js';
import { createHttpAuthorization, type AuthenticateHook } from './http-authorization.js';
import { ANSWER_LINGER_MS, type HttpCloseOptions } from './http-drain.js';
import { createMcpEndpoint } from './http-endpoint.js';
import type { EndpointParts } from './http-endpoint-parts.js';
import { checkHttpHandlerOptions } from './http-handler-options.js';
import { serveFetch, type FetchRequestInfo } from './http-fetch.js';
import { NodeEndpointRequest } from './http-node.js';
import type { EndpointRequest } from './http-request.js';
import type { HostGuardOptions } from './http-guard.js';
import { resolveHttpLimits, type HttpRequestLimitOptions } from './http-limits.js';
import { plain, rpcError, type HttpResponse } from './http-response.js';
import { SessionStore } from './http-sessions.js';
import { StreamSlots } from './stream-slots.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './stdio-server.js';
import { unrefTimer } from './timers.js';

export interface HttpHandlerOptions extends HostGuardOptions, HttpRequestLimitOptions {
  /**
   * The MCP endpoint's path as clients request it (default "/mcp"), matched
   * against the whole request path: Express's `req.originalUrl` when it is
   * there (a router mounted under a prefix rewrites `req.url`), else
   * `req.url`. Mounted at `app.use('/api', …)`, the path is "/api/mcp".
   */
  path?: string;
  /**
   * The canonical resource URI (RFC 8707): the URL clients use, e.g.
   * https://mcp.example.com/mcp. OAuth tokens must name it and the Protected
   * Resource Metadata describes it; required with OAuth (`auth.issuer`,
   * `auth.introspection`, `auth.authorizationServers`). A mounted handler
   * cannot know it: behind a proxy or TLS the address it is reached on is not
   * the one clients use. May also be given as `auth.resource`.
   */
  resource?: string;
  /** Largest accepted request body (default 4 MiB → 413). */
  maxBodyBytes?: number;
  /** Legacy sessions unused this long are ended (default 30 min). */
  sessionIdleMs?: number;
  /** Live legacy sessions at most (default 1,000); beyond it `initialize` gets 503. */
  maxSessions?: number;
  /**
   * Serve the legacy era's sessions (2025-11-25: `initialize`, `Mcp-Session-Id`, the GET
   * stream, DELETE); default true. They live in this process's memory (or shared records), so a
   * runtime that keeps nothing between requests (a Worker) cannot hold them: there, false serves
   * the stateless era (2026-07-28) alone. Then `initialize` and any request without per-request
   * `_meta` are answered 400 UnsupportedProtocolVersion naming the versions served (a client
   * that speaks both retries in the modern era), GET and DELETE 405, and `Mcp-Session-Id` is
   * ignored (streamable-http.mdx "Earlier Streamable HTTP Revisions").
   */
  legacySessions?: boolean;
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

/**
 * The MCP endpoint as a request handler, for an HTTP app of one's own
 * (node:http, Express, Fastify, Hono, a fetch runtime). Everything per
 * request is in it: both eras, sessions, streams, Host and Origin checks,
 * body and message limits, authorization and its metadata routes, rate
 * limits, the auth-failure throttle, draining. What belongs to the listening
 * server (header and request deadlines, connection caps, TLS) is the host's.
 */
export interface HttpHandler {
  /** The path it serves. */
  readonly path: string;
  /** The canonical resource URI, when one was given. */
  readonly resource: string | undefined;
  /**
   * The Node adapter over the web-standard core: serves Node's request and
   * response (`http.createServer(handler.handle)`, `app.use(handler.handle)`,
   * Fastify's `reply.raw`), writing the ServerResponse as it is. A path it does not own
   * (neither `path` nor its metadata routes) goes to `next()`, or without one
   * is answered 404.
   */
  handle(req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void;
  /**
   * The web-standard face: serves a Web Request (Hono, Bun, Deno, Workers): answers become Response
   * objects, streams a ReadableStream body; `request.signal` aborting, or the
   * body being cancelled, is the client going away. `info.remoteAddress` is
   * the client's address, which the auth-failure throttle and stream caps
   * count by (without it, and without `trustProxy`, all clients share one count).
   */
  fetch(request: Request, info?: FetchRequestInfo): Promise<Response>;
  /**
   * Stops serving: legacy sessions and subscriptions end; later requests get
   * 503. With `{ graceMs }`, calls in flight first get that long to finish
   * (`ToolServer.drain`, which stops calls on every transport of the server)
   * and their answers a moment to be written.
   */
  close(options?: HttpCloseOptions): Promise<void>;
}

/** Builds the MCP endpoint handler of `toolServer`; throws TypeError or RangeError for bad options. */
export function createHttpHandler(toolServer: ToolServer, options: HttpHandlerOptions = {}): HttpHandler {
  checkHttpHandlerOptions(options);
  const path = options.path ?? '/mcp';
  const logger = toolServer.logger;
  const parts = endpointParts(toolServer, options, path);
  const { authorization, sessions } = parts;
  const serveMcp = createMcpEndpoint(parts);

  let inFlight = 0;
  let closed = false;
  let onIdle: (() => void) | undefined;
  const settled = () => {
    if (--inFlight === 0) onIdle?.();
  };
  const failed = (res: HttpResponse) => (err: unknown) => {
    settled();
    try {
      logger.error({ err }, 'HTTP request failed');
    } catch {
      // A logger that throws must not keep the answer back.
    }
    if (!res.headersSent) rpcError(res, new RpcError(ErrorCode.InternalError, 'Internal error', undefined, 500));
    else res.end();
  };

  // The endpoint's one entry, on the runtime-neutral request (http-request.ts); both faces come here.
  const route = (req: EndpointRequest, res: HttpResponse, next?: () => void): void => {
    const target = pathOf(req.url);
    if (target !== path) {
      if (authorization?.serveMetadata(target, req, res)) return;
      if (next) return void next();
      return void plain(res, 404, 'Not Found');
    }
    if (closed) {
      res.setHeader('retry-after', '5');
      return void rpcError(res, new RpcError(ErrorCode.InternalError, 'Service Unavailable: the MCP endpoint is closed', undefined, 503));
    }
    inFlight++;
    serveMcp(req, res).then(settled, failed(res));
  };

  return {
    path,
    resource: options.auth?.resource ?? options.resource,
    // The Node adapter: Node's request seen through one small object, its ServerResponse written as it is.
    handle: (req, res, next) => route(new NodeEndpointRequest(req, (req as { originalUrl?: string }).originalUrl ?? req.url), res, next),
    fetch: (request, info) => serveFetch(request, info, route),
    close: async (closeOptions: HttpCloseOptions = {}) => {
      // Graceful: let the calls in flight answer first (ToolServer.drain).
      if (closeOptions.graceMs !== undefined) await toolServer.drain(closeOptions.graceMs);
      // End subscriptions with their completion result, give the writes a turn, then end sessions and their streams.
      toolServer.endSubscriptions();
      await new Promise((r) => setTimeout(r, 0));
      closed = true;
      sessions.close();
      if (closeOptions.graceMs !== undefined && inFlight > 0) await idle(ANSWER_LINGER_MS);
    },
  };

  /** Resolves once no request is being served, or after `ms`. */
  function idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      unrefTimer(timer);
      onIdle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** What the endpoint serves with, from the handler's options: limits, authorization and its throttle, sessions, stream slots. */
function endpointParts(toolServer: ToolServer, options: HttpHandlerOptions, path: string): EndpointParts {
  const logger = toolServer.logger;
  const limits = resolveHttpLimits(options);
  const authorization = createHttpAuthorization(options, options.resource, path, logger);
  const authThrottle =
    authorization && limits.authFailureLimit ? new AuthFailureThrottle(limits.authFailureLimit, limits.trustProxy, toolServer.createLimiter) : undefined;
  const sessions = new SessionStore(
    options.sessionIdleMs ?? 30 * 60_000,
    options.maxSessions ?? 1_000,
    toolServer.sessionRecords,
    (err) => logger.warn({ err }, 'a shared legacy session record could not be read or written'),
    toolServer.bus,
  );
  return {
    server: toolServer,
    // Without a bind address to judge by: any Host, and no Origin (a browser page) unless allowed.
    guard: { allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins ?? [] },
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    keepAliveMs: options.keepAliveMs ?? 25_000,
    legacySessions: options.legacySessions !== false,
    trustProxy: limits.trustProxy,
    sessions,
    streams: new StreamSlots(limits.maxStreams, limits.maxStreamsPerPrincipal),
    authorization,
    authThrottle,
  };
}

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
