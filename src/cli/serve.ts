import { ToolServer } from '../server/server.js';
import { ToolDefinitionError } from '../server/compile-tool.js';
import { serveHttp } from '../transports/http-server.js';
import { serveStdio } from '../transports/stdio-server.js';
import { demoTools } from './demo-tools.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';
import { loadToolsModule, resolveTools } from './load-tools.js';

export interface ServeOptions {
  stdio?: boolean;
  http?: boolean;
  host: string;
  port: string;
  tools?: string;
}

/**
 * `toolwright serve`: stdio by default (what desktop clients spawn), or HTTP.
 * Resolves with the exit code once the server has stopped: stdin closed
 * (stdio), or SIGINT/SIGTERM.
 */
export async function serveCommand(options: ServeOptions, io: CliIo, version: string): Promise<number> {
  if (options.stdio && options.http) throw new UsageError('choose one of --stdio and --http');
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(options.port)}`);
  const loaded = options.tools ? await loadToolsModule(options.tools) : demoTools;
  const server = new ToolServer({ name: 'toolwright', version });
  try {
    server.addTool(...(await resolveTools(loaded, server)));
  } catch (err) {
    if (err instanceof ToolDefinitionError) throw new UsageError(err.message);
    throw err;
  }
  return options.http ? serveOverHttp(server, options.host, port, io) : serveOverStdio(server);
}

async function serveOverHttp(server: ToolServer, host: string, port: number, io: CliIo): Promise<number> {
  let handle;
  try {
    handle = await serveHttp(server, { host, port });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${port} on ${host} is already in use; pick another with --port`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on host ${JSON.stringify(host)}`);
    throw err;
  }
  io.stderr(`toolwright: serving ${server.tools.size} tool(s) on ${handle.url}\n`);
  await untilSignal();
  io.stderr('toolwright: shutting down\n');
  await handle.close();
  return ExitCode.ok;
}

async function serveOverStdio(server: ToolServer): Promise<number> {
  const handle = serveStdio(server);
  const stop = untilSignal().then(() => handle.close());
  await Promise.race([handle.closed, stop]);
  return ExitCode.ok;
}

/** Resolves on the first SIGINT or SIGTERM; a second one is left to Node (immediate exit). */
function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
}
