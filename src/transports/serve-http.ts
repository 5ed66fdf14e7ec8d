import type { ToolServer } from '../server/server.js';
import type { HttpServeOptions, HttpServerHandle } from './http-server.js';

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

export type { HttpServeOptions, HttpServerHandle };
