import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExtraRoutes } from './api-routes.js';
import { createConsoleApp, type ConsoleApp } from './console-app.js';
import { loopbackGuard } from './guard.js';
import { sendJson } from './http-io.js';
import { randomId } from './random-id.js';
import type { ConsoleTarget } from './session.js';

interface StartConsoleOptions {
  version: string;
  /** Default 0: a free port. */
  port?: number;
  /** What to connect to at once (the command line's target); the page can connect elsewhere. */
  target?: ConsoleTarget;
  routes?: ExtraRoutes;
  onError?: (err: unknown) => void;
}

export interface RunningConsole {
  /** The page's address with its token in the fragment: what `toolwright console` prints first. */
  readonly url: string;
  readonly port: number;
  readonly app: ConsoleApp;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * `toolwright console`: the console on its own listener, bound to 127.0.0.1 only (it starts
 * processes and calls tools for whoever holds its token). The token is fresh each run.
 */
export async function startConsole(options: StartConsoleOptions): Promise<RunningConsole> {
  const token = randomId();
  let app: ConsoleApp | undefined;
  const server = createServer((req, res) => {
    if (!app) return sendJson(res, 503, { error: { message: 'the console is starting' } });
    app.handle(req, res).then(
      (handled) => {
        if (!handled) sendJson(res, 404, { error: { message: 'not found' } });
      },
      (err) => {
        options.onError?.(err);
        if (!res.headersSent) sendJson(res, 500, { error: { message: 'the console failed to answer' } });
        else res.end();
      },
    );
  });
  // Long-lived event and call streams: no request deadline (they end with the page).
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  app = createConsoleApp({
    version: options.version,
    guard: loopbackGuard(port, token),
    ...(options.target ? { target: options.target } : {}),
    ...(options.routes ? { routes: options.routes } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  const running = app;
  if (options.target) running.session.connect(options.target).catch(() => {}); // the page shows the failure (status.lastError)
  return {
    url: `http://127.0.0.1:${port}/#token=${token}`,
    port,
    app: running,
    server,
    async close() {
      await running.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
