import type { ToolServer } from '../server/server.js';
import type { HttpHandler, HttpHandlerOptions } from './http-handler.js';
import { checkHttpHandlerOptions } from './http-handler-options.js';
import type { HttpRoute, HttpServeOptions, HttpServerHandle } from './http-server.js';

/**
 * Serves the tool server over Streamable HTTP (see http-server.ts). The HTTP
 * stack (node:http, sessions, SSE) is loaded on the first call, so a server
 * that only speaks stdio — what desktop clients spawn — never pays its
 * start-up cost.
 */
export async function serveHttp(toolServer: ToolServer, options: HttpServeOptions = {}): Promise<HttpServerHandle> {
  const { serveHttp: serve } = await import('./http-server.js');
  return serve(toolServer, options);
}

/**
 * The MCP endpoint as a handler to mount in an HTTP app of one's own (see http-handler.ts):
 * the same name and the same behaviour as `toolwright/http`'s. It returns the handler at once
 * (`{ path, resource, handle, fetch, close }`) and throws a bad option at once, while the HTTP
 * stack (~10 ms) loads in the background, so `import 'toolwright'` costs a stdio-only server
 * nothing. A request that arrives before the stack has loaded waits for it (one turn, once).
 */
export function createHttpHandler(toolServer: ToolServer, options: HttpHandlerOptions = {}): HttpHandler {
  checkHttpHandlerOptions(options);
  let real: HttpHandler | undefined;
  const loading = import('./http-server.js').then(({ createHttpHandler: create }) => (real = create(toolServer, options)));
  // A failure is reported where the handler is used (next(err), a 500, a rejected fetch or close), not as an unhandled rejection.
  loading.catch(() => {});
  return {
    path: options.path ?? '/mcp',
    resource: options.auth?.resource ?? options.resource,
    handle(req, res, next) {
      if (real) return real.handle(req, res, next);
      loading.then(
        (handler) => handler.handle(req, res, next),
        (err: unknown) => {
          if (next) return next(err);
          toolServer.logger.error({ err }, 'HTTP request failed');
          res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
        },
      );
    },
    fetch: (request, info) => (real ? real.fetch(request, info) : loading.then((handler) => handler.fetch(request, info))),
    close: (closeOptions) => loading.then((handler) => handler.close(closeOptions)),
  };
}

export type { HttpServeOptions, HttpServerHandle, HttpRoute, HttpHandler, HttpHandlerOptions };
export type { FetchRequestInfo } from './http-fetch.js';
export type { HttpCloseOptions } from './http-drain.js';
