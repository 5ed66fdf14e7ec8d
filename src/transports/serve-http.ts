import type { ToolServer } from '../server/server.js';
import type { HttpHandler, HttpHandlerOptions } from './http-handler.js';
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
 * The MCP endpoint as a handler to mount in an HTTP app of one's own (see
 * http-handler.ts). Asynchronous for the same reason as serveHttp: the HTTP
 * stack is loaded on the first call (~6 ms), not by every `import 'toolwright'`.
 * Bad options reject with a TypeError or RangeError.
 */
export async function createHttpHandler(toolServer: ToolServer, options: HttpHandlerOptions = {}): Promise<HttpHandler> {
  const { createHttpHandler: create } = await import('./http-server.js');
  return create(toolServer, options);
}

export type { HttpServeOptions, HttpServerHandle, HttpRoute, HttpHandler, HttpHandlerOptions };
export type { FetchRequestInfo } from './http-fetch.js';
export type { HttpCloseOptions } from './http-drain.js';
