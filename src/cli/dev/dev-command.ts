import { resolve } from 'node:path';
import { openBrowser } from '../../client/auth/loopback.js';
import type { DevReloadState } from '../../console/api-types.js';
import type { ExtraRoutes } from '../../console/server/api-routes.js';
import type { ToolServer } from '../../server/server.js';
import { type CliIo, UsageError } from '../errors.js';
import { serveCommand, type ServeOptions } from '../serve.js';
import { shown } from './module-bundle.js';
import { DevReloader } from './reloader.js';

export interface DevOptions {
  stdio?: boolean;
  http?: boolean;
  host?: string;
  port?: string;
  tools?: string;
  config?: string;
  /** A servers file (.mcp.json) mounted as serve --upstreams mounts it; served, never reloaded. */
  upstreams?: string;
  /** commander's `--no-open`: false when given. */
  open: boolean;
  /** commander's `--no-typecheck`: false when given (reloads are not type-checked). */
  typecheck?: boolean;
}

/** The console's read-only view of the reloads (in place of console/server/dev-routes.ts's): the last error, until a reload succeeds. */
export const DEV_RELOAD_ROUTE = 'GET dev/reload';

/**
 * `toolwright dev`: `serve` for the person writing the server. The same flags and start-up
 * (a config, --tools, both), over HTTP with the console beside it (opened in the browser unless
 * --no-open) unless --stdio; then every change to a tools module (or a file it imports), the
 * config, or the prompt, resource and skill folders is applied to the running server
 * (reloader.ts) without dropping its clients.
 */
export async function devCommand(options: DevOptions, io: CliIo, version: string): Promise<number> {
  if (options.stdio && options.http) throw new UsageError('choose one of --stdio and --http');
  const http = !options.stdio;
  const reloader = new DevReloader(io, version, options.tools === undefined ? undefined : resolve(options.tools), options.typecheck !== false);
  const serve: ServeOptions = {
    ...(http ? { http: true, console: true } : { stdio: true }),
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.tools !== undefined ? { tools: options.tools } : {}),
    ...(options.config !== undefined ? { config: options.config } : {}),
    ...(options.upstreams !== undefined ? { upstreams: options.upstreams } : {}),
  };
  const consoleRoutes: ExtraRoutes = { [DEV_RELOAD_ROUTE]: async (): Promise<DevReloadState> => ({ available: true, ...reloader.status }) };
  return serveCommand(serve, io, version, {
    loadTools: reloader.loadTools,
    planned: reloader.planned,
    consoleRoutes,
    serving: (server: ToolServer, consoleUrl: string | undefined) => {
      const stop = reloader.serving(server);
      // Upstreams are other processes and servers: their tools follow their own list changes
      // (the gateway relays them), but the file that names them is read once.
      if (options.upstreams !== undefined)
        io.stderr(`toolwright dev: ${shown(resolve(options.upstreams))} is served, not reloaded: restart to change the upstreams\n`);
      if (consoleUrl && options.open) openConsole(consoleUrl, io);
      return stop;
    },
  });
}

/** The platform's opener (open, xdg-open, rundll32); none is no failure: the URL is on the terminal already. */
function openConsole(url: string, io: CliIo): void {
  openBrowser(url)
    .catch(() => false)
    .then((opened) => {
      if (!opened) io.stderr('toolwright dev: no browser could be opened: open the console URL above.\n');
    });
}
