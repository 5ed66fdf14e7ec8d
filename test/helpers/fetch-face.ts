import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { inject } from 'vitest';
import { createHttpHandler } from '../../src/transports/http-handler.js';
import { defaultGuard } from '../../src/transports/http-guard.js';
import type { HttpServeOptions, HttpServerHandle } from '../../src/transports/http-server.js';
import type { ToolServer } from '../../src/server/server.js';

/** Which face of the HTTP endpoint a test file's servers use: vitest.config.ts runs the face-independent HTTP files once per face. */
export type HttpFace = 'node' | 'fetch';

export function httpFace(): HttpFace {
  return (inject('httpFace' as never) as HttpFace | undefined) ?? 'node';
}

/**
 * The endpoint's web-standard face (`handler.fetch`) served by Hono's Node
 * adapter (@hono/node-server: Node's request as a Web Request, the Response
 * written back as it streams), on 127.0.0.1 like serveHttp, with the same
 * Host/Origin defaults and resource URI. What serveHttp adds for the socket
 * (deadlines, connection caps) is not here: on this face it is the host's.
 */
export async function serveFetchFace(toolServer: ToolServer, options: HttpServeOptions = {}): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  let handler: ReturnType<typeof createHttpHandler> | undefined;
  const server = serve({
    hostname: host,
    port: options.port ?? 0,
    fetch: (request, env: { incoming: { socket: { remoteAddress?: string } } }) =>
      handler!.fetch(request, { remoteAddress: env.incoming.socket.remoteAddress }),
  });
  await new Promise<void>((resolve, reject) => {
    if (server.listening) return resolve();
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}${path}`;
  const guard = { ...defaultGuard(host) };
  if (options.allowedHosts !== undefined) guard.allowedHosts = options.allowedHosts;
  if (options.allowedOrigins !== undefined) guard.allowedOrigins = options.allowedOrigins;
  const resource = options.resource ?? options.auth?.resource ?? url;
  handler = createHttpHandler(toolServer, { ...options, ...guard, resource });
  const mcp = handler;
  const nodeServer = server as unknown as HttpServerHandle['server'];
  return {
    url,
    port,
    server: nodeServer,
    handler: mcp,
    close: async (closeOptions = {}) => {
      await mcp.close(closeOptions);
      await new Promise<void>((resolve) => {
        nodeServer.close(() => resolve());
        nodeServer.closeAllConnections();
      });
    },
  };
}
