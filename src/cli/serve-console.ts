import type { IncomingMessage, ServerResponse } from 'node:http';
import { operatorSources } from '../console/operator/sources.js';
import type { ExtraRoutes } from '../console/server/api-routes.js';
import { createConsoleApp, type ConsoleApp } from '../console/server/console-app.js';
import { loopbackGuard } from '../console/server/guard.js';
import { sendJson } from '../console/server/http-io.js';
import { randomId } from '../console/server/random-id.js';
import type { ToolServer } from '../server/server.js';
import { MemoryClientTransport } from '../testing.js';
import { isLoopbackBind } from '../transports/http-guard.js';
import type { HttpServerHandle } from '../transports/http-server.js';
import { UsageError, type CliIo } from './errors.js';

/** Where `serve --console` puts the console on the server's own listener. */
const CONSOLE_PREFIX = '/console';

/**
 * `toolwright serve --http --console`: the console beside the MCP endpoint, on the same
 * listener (the handler's fallback route), for the server's operator. Its client reaches the
 * server in process. Loopback binds only: the console starts calls for whoever holds its
 * token, and a token printed on a terminal is not an authentication a network can rely on.
 */
export class ConsoleBesideServer {
  private app?: ConsoleApp;

  static refuseNetworkBind(host: string): void {
    if (!isLoopbackBind(host))
      throw new UsageError(
        `--console is served on loopback binds only (it calls tools for whoever holds its URL); bind 127.0.0.1 and reach it through an SSH tunnel, or run toolwright console on your machine against ${host}`,
      );
  }

  /** The fallback route for serveHttp: the console under /console/, 404 elsewhere. */
  readonly route = (req: IncomingMessage, res: ServerResponse): Promise<void> | void => {
    if (!this.app) return sendJson(res, 404, { error: { message: 'not found' } });
    return this.app.handle(req, res).then((handled) => {
      if (!handled) sendJson(res, 404, { error: { message: 'not found' } });
    });
  };

  /** Once the listener's port is known: builds the console, says where it is and returns that URL (`routes`: beside the console's own). */
  start(server: ToolServer, handle: HttpServerHandle, version: string, io: CliIo, routes?: ExtraRoutes): string {
    const token = randomId();
    this.app = createConsoleApp({
      version,
      guard: loopbackGuard(handle.port, token),
      prefix: CONSOLE_PREFIX,
      target: { kind: 'transport', label: 'this server', transport: () => new MemoryClientTransport(server) },
      operator: operatorSources(server),
      onError: (err) => server.logger.error({ err }, 'console request failed'),
      ...(routes ? { routes } : {}),
    });
    this.app.session.connect(this.app.session.defaultTarget!).catch((err) => server.logger.error({ err }, 'the console could not connect to its server'));
    const origin = new URL(handle.url).origin;
    const url = `${origin}${CONSOLE_PREFIX}/#token=${token}`;
    io.stderr(`toolwright: console on ${url} (anyone with this URL can call the tools)\n`);
    return url;
  }

  async close(): Promise<void> {
    await this.app?.close();
  }
}
