import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionGate } from './http-connections.js';
import { endDrainedConnections, stopAccepting, type HttpCloseOptions } from './http-drain.js';
import { defaultGuard, type HostGuardOptions } from './http-guard.js';
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from './http-handler.js';
import { nodeServerOptions, resolveHttpLimits, type HttpSocketLimitOptions } from './http-limits.js';
import { plain } from './http-response.js';
import type { ToolServer } from '../server/server.js';

// Re-exported for serve-http.ts: both load the HTTP stack as this one chunk.
export { createHttpHandler } from './http-handler.js';

/** Serves one extra route beside MCP; a throw or rejection is answered 500 and logged. */
export type HttpRoute = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface HttpServeOptions extends HttpHandlerOptions, HttpSocketLimitOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /**
   * Extra routes beside MCP, by exact path (the query is ignored): the CLI's
   * and an app's own pages, health checks. They get the listening server's
   * protections (deadlines, connection caps) but none of the MCP endpoint's
   * (Host/Origin, authorization): check what they need themselves.
   */
  routes?: Record<string, HttpRoute>;
  /** Serves every other path (default: 404). */
  fallback?: HttpRoute;
}

export interface HttpServerHandle {
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** The MCP endpoint handler the server serves with. */
  readonly handler: HttpHandler;
  /** Stops serving: at once, or gracefully with `{ graceMs }` (see HttpCloseOptions). */
  close(options?: HttpCloseOptions): Promise<void>;
}

/**
 * Listens on a node:http server and serves the MCP endpoint handler
 * (http-handler.ts) on it, with what belongs to the listening server: header
 * and request deadlines, keep-alive, connection caps, the default Host and
 * Origin rules of its bind address, and the resource URI its address gives
 * when none is set.
 */
export async function serveHttp(toolServer: ToolServer, options: HttpServeOptions = {}): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const guard: HostGuardOptions = { ...defaultGuard(host), ...definedOnly(options) };
  const limits = resolveHttpLimits(options);
  const routes = routeTable(options.routes, path);
  const connections = new ConnectionGate(limits.maxConnections, limits.maxConnectionsPerAddress);
  const auth = options.auth;
  const resource = options.resource ?? auth?.resource;
  if (auth && (auth.issuer !== undefined || auth.introspection !== undefined) && !resource && /^(0\.0\.0\.0|::|\[::\])$/.test(host)) {
    throw new TypeError(`auth.resource must be set when binding ${host}: it is the URL clients use (and tokens name), e.g. https://mcp.example.com/mcp`);
  }
  const other = otherRoutes(routes, options.fallback, toolServer.logger);
  // Set once the server listens (the default resource URI is its URL); requests only come after.
  let handler: HttpHandler | undefined;
  const server = createServer(nodeServerOptions(limits), (req, res) => {
    // A connection over a cap was answered 503 when it opened; what it sent anyway is dropped.
    if (connections.isRefused(req.socket)) return;
    handler!.handle(req, res, other && (() => other(req, res)));
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
  const url = `http://${urlHost}:${port}${path}`;
  try {
    handler = createHttpHandler(toolServer, { ...options, ...guard, resource: resource ?? url });
  } catch (err) {
    await new Promise((resolve) => server.close(resolve));
    throw err;
  }
  const mcp = handler;
  return {
    url,
    port,
    server,
    handler: mcp,
    close: async (closeOptions: HttpCloseOptions = {}) => {
      if (closeOptions.graceMs === undefined) {
        await mcp.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        return;
      }
      // Graceful: stop accepting, let the calls in flight answer (the handler drains), then close what is left.
      const closed = stopAccepting(server);
      await mcp.close(closeOptions);
      await endDrainedConnections(server, closed);
    },
  };
}

/** What answers beside MCP: the `routes` by path, else the `fallback`, else 404; a route that fails is answered 500 and logged. */
function otherRoutes(
  routes: Map<string, HttpRoute> | undefined,
  fallback: HttpRoute | undefined,
  logger: ToolServer['logger'],
): ((req: IncomingMessage, res: ServerResponse) => void) | undefined {
  const serveRoute = (route: HttpRoute, req: IncomingMessage, res: ServerResponse): void => {
    const failed = (err: unknown) => {
      try {
        logger.error({ err }, 'HTTP route failed');
      } catch {
        // A logger that throws must not keep the answer back.
      }
      if (!res.headersSent) plain(res, 500, 'Internal Server Error');
      else res.end();
    };
    try {
      const pending = route(req, res);
      // Any thenable (an async route, or a promise from another realm) is watched for its rejection.
      if (typeof (pending as PromiseLike<unknown> | undefined)?.then === 'function') Promise.resolve(pending).catch(failed);
    } catch (err) {
      failed(err);
    }
  };
  if (!routes && !fallback) return undefined;
  return (req: IncomingMessage, res: ServerResponse) => {
    const route = routes?.get(pathOf(req.url)) ?? fallback;
    if (route) serveRoute(route, req, res);
    else plain(res, 404, 'Not Found');
  };
}

function routeTable(routes: Record<string, HttpRoute> | undefined, mcpPath: string): Map<string, HttpRoute> | undefined {
  if (!routes) return undefined;
  const table = new Map<string, HttpRoute>();
  for (const [path, route] of Object.entries(routes)) {
    if (!path.startsWith('/')) throw new TypeError(`HTTP: route path must start with "/", got ${JSON.stringify(path)}`);
    if (path === mcpPath) throw new TypeError(`HTTP: route ${path} is the MCP endpoint's path`);
    if (typeof route !== 'function') throw new TypeError(`HTTP: route ${path} must be a function (req, res)`);
    table.set(path, route);
  }
  return table;
}

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

function definedOnly(options: HostGuardOptions): HostGuardOptions {
  const out: HostGuardOptions = {};
  if (options.allowedHosts !== undefined) out.allowedHosts = options.allowedHosts;
  if (options.allowedOrigins !== undefined) out.allowedOrigins = options.allowedOrigins;
  return out;
}
