import { resolve } from 'node:path';
import { buildServer, type ServerPlan } from '../config/build.js';
import { findConfig, loadConfig } from '../config/load.js';
import { ConfigError } from '../config/validate.js';
import { ToolDefinitionError } from '../server/compile-tool.js';
import { ToolServer } from '../server/server.js';
import { serveHttp } from '../transports/serve-http.js';
import { serveStdio } from '../transports/stdio-server.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';
import { loadToolsModule, resolveTools } from './load-tools.js';

export interface ServeOptions {
  stdio?: boolean;
  http?: boolean;
  host?: string;
  port?: string;
  tools?: string;
  config?: string;
}

/**
 * `toolwright serve`: what to serve comes from a config file (--config, or
 * toolwright.config.{json,yaml,yml} in the working directory), or — with
 * neither — the default toolsets (fs in ./workspace, csv, time, math).
 * `--tools <module>` adds a tools module; without a config it is served alone.
 * Transport: --stdio / --http, else the config's, else stdio (what desktop
 * clients spawn). Resolves with the exit code once the server has stopped.
 */
export async function serveCommand(options: ServeOptions, io: CliIo, version: string): Promise<number> {
  if (options.stdio && options.http) throw new UsageError('choose one of --stdio and --http');
  const plan = await planServer(options, version);
  const transport = options.http ? 'http' : options.stdio ? 'stdio' : (plan.transport ?? 'stdio');
  const host = options.host ?? plan.http.host ?? '127.0.0.1';
  const port = parsePort(options.port ?? plan.http.port ?? 3000);
  return transport === 'http' ? serveOverHttp(plan, host, port, io) : serveOverStdio(plan.server);
}

async function planServer(options: ServeOptions, version: string): Promise<ServerPlan> {
  const cwd = process.cwd();
  const file = options.config || !options.tools ? findConfig(cwd, options.config) : undefined;
  let plan: ServerPlan;
  let modules: string[] = [];
  try {
    if (file) {
      const loaded = loadConfig(file);
      plan = buildServer(loaded.config, loaded.baseDir, version, loaded.file);
      modules = (loaded.config.tools ?? []).map((m) => resolve(loaded.baseDir, m));
    } else if (options.tools) {
      plan = { server: new ToolServer({ name: 'toolwright', version }), http: {} };
    } else {
      plan = buildServer({}, cwd, version, 'the default toolsets');
    }
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  if (options.tools) modules.push(options.tools);
  for (const module of modules) {
    try {
      plan.server.addTool(...(await resolveTools(await loadToolsModule(module), plan.server)));
    } catch (err) {
      if (err instanceof ToolDefinitionError) throw new UsageError(err.message);
      throw err;
    }
  }
  return plan;
}

function parsePort(value: string | number): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(value)}`);
  return port;
}

async function serveOverHttp(plan: ServerPlan, host: string, port: number, io: CliIo): Promise<number> {
  const { server } = plan;
  let handle;
  try {
    handle = await serveHttp(server, { ...plan.http, host, port });
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
  server.close();
  return ExitCode.ok;
}

async function serveOverStdio(server: ToolServer): Promise<number> {
  const handle = serveStdio(server);
  const stop = untilSignal().then(() => handle.close());
  await Promise.race([handle.closed, stop]);
  server.close();
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
