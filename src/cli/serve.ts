import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildServer, DEFAULT_TOOLSETS, type ServerPlan } from '../config/build.js';
import { findConfig, loadConfig, type LoadedConfig } from '../config/load.js';
import { locateState, type StateLocation } from '../config/state-dir.js';
import { PostgresDriverError } from '../audit/postgres/connection.js';
import { SqliteDriverError } from '../audit/sqlite-driver.js';
import { startUpstreams } from './serve-upstreams.js';
import { MissingPackageError } from '../runtime/optional-package.js';
import { ConfigError } from '../config/validate.js';
import { ToolDefinitionError } from '../server/compile-tool.js';
import type { ToolServer } from '../server/server.js';
import type { Tool } from '../server/tool.js';
import type { ExtraRoutes } from '../console/server/api-routes.js';
import { serveHttp } from '../transports/serve-http.js';
import { serveStdio } from '../transports/stdio-server.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';
import { checkAuditTrail, reportAuditLosses } from './audit-startup.js';
import { checkSharedState } from './state-startup.js';
import { loadToolsModule, resolveTools } from './load-tools.js';
import { loadMiddlewareModule } from './load-middleware.js';
import { checkNetworkExposure } from './network-exposure.js';
import type { ConsoleBesideServer } from './serve-console.js';
import { startOpenTelemetry } from './otel.js';
import { installProcessGuards } from './process-guards.js';
import { shutdownRequests, type ShutdownReason, type ShutdownRequests } from './shutdown-requests.js';

/** On SIGTERM/SIGINT, how long calls in flight may finish before they are stopped. */
const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

export interface ServeOptions {
  stdio?: boolean;
  http?: boolean;
  host?: string;
  port?: string;
  tools?: string;
  /** A servers file (.mcp.json) whose every server is mounted as an upstream. */
  upstreams?: string;
  /** Search mode: tools/list shows only search_tools and call_tool (docs/gateway.md). */
  searchCatalog?: boolean;
  config?: string;
  allowUnauthenticatedNetwork?: boolean;
  shutdownGrace?: string;
  /** Serve the web console at /console/ beside the MCP endpoint (HTTP, loopback binds). */
  console?: boolean;
}

/**
 * What `toolwright dev` adds to serving (serve itself passes none): its own loader of tools
 * modules, a look at the server before the modules load, and a start once it is served.
 */
export interface ServeHooks {
  /** Loads one tools module's tools (default: import it once, as serve does). */
  loadTools?: (module: string, server: ToolServer) => Promise<Tool[]>;
  /** The server the config built, before any tools module is added (`loaded`: the config, if any). */
  planned?: (server: ToolServer, loaded: LoadedConfig | undefined, configPath: string | undefined) => void;
  /** Routes beside the console's own (with --console). */
  consoleRoutes?: ExtraRoutes;
  /** Once serving (`consoleUrl` with --console): returns what to stop before the server shuts down. */
  serving?: (server: ToolServer, consoleUrl: string | undefined) => () => void;
}

/**
 * `toolwright serve`: what to serve comes from a config file (--config, or
 * toolwright.config.{json,yaml,yml} in the working directory: the toolsets and
 * tools it names, nothing else), or — with neither a config nor --tools — the
 * default toolsets (fs in ./workspace, csv, time, math).
 * `--tools <module>` adds a tools module; without a config it is served alone.
 * Transport: --stdio / --http, else the config's, else stdio (what desktop
 * clients spawn). Resolves with the exit code once the server has stopped:
 * 0 after a graceful shutdown (SIGTERM/SIGINT, or stdin closing), 2 after one
 * an uncaught exception started; a second signal exits at once (130/143).
 */
export async function serveCommand(options: ServeOptions, io: CliIo, version: string, hooks: ServeHooks = {}): Promise<number> {
  if (options.stdio && options.http) throw new UsageError('choose one of --stdio and --http');
  if (options.console && options.stdio) throw new UsageError('--console is served over HTTP: use it with --http');
  const cliGrace = options.shutdownGrace === undefined ? undefined : parseGrace(options.shutdownGrace);
  // Before the server is built: its spans and metrics go to the SDK's providers from the first request.
  const stopTelemetry = await startOpenTelemetry(process.env, io);
  try {
    return await serveWith(options, io, version, cliGrace, hooks);
  } finally {
    await stopTelemetry?.();
  }
}

async function serveWith(options: ServeOptions, io: CliIo, version: string, cliGrace: number | undefined, hooks: ServeHooks): Promise<number> {
  const { plan, state } = await planServer(options, version, io, hooks);
  const gateway = await startUpstreams(plan, options.upstreams, io, state.dir);
  // The flag, or the config's `catalog: { mode: search }`.
  if (options.searchCatalog || plan.catalog?.mode === 'search') {
    (await import('../gateway/search-catalog.js')).useSearchCatalog(plan.server, { matches: plan.catalog?.matches });
  }
  try {
    return await servePlan(plan, options, io, state, cliGrace, version, hooks);
  } finally {
    // Every upstream stopped, a stdio one with its whole process group.
    await gateway?.close();
  }
}

/** The console (its server, the client it calls tools with) loads only for `serve --console`. */
async function loadConsoleBeside(): Promise<typeof ConsoleBesideServer> {
  return (await import('./serve-console.js')).ConsoleBesideServer;
}

async function servePlan(
  plan: ServerPlan,
  options: ServeOptions,
  io: CliIo,
  state: StateLocation,
  cliGrace: number | undefined,
  version: string,
  hooks: ServeHooks,
): Promise<number> {
  const transport = options.http ? 'http' : options.stdio ? 'stdio' : (plan.transport ?? 'stdio');
  const graceMs = cliGrace ?? plan.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
  let address: { host: string; port: number } | undefined;
  if (transport === 'http') {
    address = { host: options.host ?? plan.http.host ?? '127.0.0.1', port: parsePort(options.port ?? plan.http.port ?? 3000) };
    // Before anything listens: a refusal leaves nothing half-started.
    if (options.console) (await loadConsoleBeside()).refuseNetworkBind(address.host);
    const warning = checkNetworkExposure(address.host, plan, options.allowUnauthenticatedNetwork);
    if (warning) io.stderr(warning);
  }
  // After every other refusal: a set-up that fails says only what failed, not where state would have been.
  await checkAuditTrail(plan.server, state, io);
  await checkSharedState(plan.server, io);
  const shutdown = shutdownRequests(io.stderr);
  const uninstallGuards = installProcessGuards(plan.server.logger, () => shutdown.request('uncaughtException'));
  try {
    if (options.console && !address) throw new UsageError('--console is served over HTTP: use it with --http');
    const beside = options.console ? new (await loadConsoleBeside())() : undefined;
    return address
      ? await serveOverHttp(plan, address.host, address.port, io, shutdown, graceMs, beside, version, hooks)
      : await serveOverStdio(plan.server, io, shutdown, graceMs, hooks);
  } finally {
    uninstallGuards();
    shutdown.dispose();
  }
}

async function planServer(options: ServeOptions, version: string, io: CliIo, hooks: ServeHooks): Promise<{ plan: ServerPlan; state: StateLocation }> {
  const cwd = process.cwd();
  const alone = options.tools || options.upstreams;
  const file = options.config || !alone ? findConfig(cwd, options.config) : undefined;
  // Where the audit trail, tasks and (with no config) ./workspace go: docs/audit.md, "Where state lives".
  const state = locateState(cwd, file);
  // A per-user state folder is private (audit data names callers and their arguments): made
  // here before the default workspace inside it would make it with the default mode. Other
  // contents (the trail, tasks) make it 0700 themselves when they are first written.
  if (!state.project && !file && !options.tools) tryMkdirPrivate(state.dir);
  let plan: ServerPlan;
  let modules: string[] = [];
  let middleware: string[] = [];
  let loaded: LoadedConfig | undefined;
  try {
    if (file) {
      const current = loadConfig(file);
      loaded = current;
      plan = buildServer(current.config, current.baseDir, version, current.file, state.dir);
      modules = (current.config.tools ?? []).map((m) => resolve(current.baseDir, m));
      middleware = (current.config.middleware ?? []).map((m) => resolve(current.baseDir, m));
      const { toolsets, tools, resources, prompts, upstreams, skills } = current.config;
      // Configs once got the default toolsets when they named none: say why such a server is empty.
      if (!toolsets && !tools?.length && !resources && !prompts && !skills && !upstreams && !options.tools && !options.upstreams)
        io.stderr(
          `toolwright: ${current.file} names no toolsets and no tools, so it serves none; add a toolsets: section for the built-in tools (docs/configuration.md)\n`,
        );
    } else if (alone) {
      plan = buildServer({}, state.base, version, options.tools ? 'the tools module' : 'the upstreams file', state.dir);
    } else {
      plan = buildServer({ toolsets: DEFAULT_TOOLSETS }, state.base, version, 'the default toolsets', state.dir);
    }
  } catch (err) {
    // A backend whose package is not installed (or whose SQLite driver cannot load) is a set-up problem with a known fix: say it and stop.
    if (err instanceof ConfigError || err instanceof SqliteDriverError || err instanceof PostgresDriverError || err instanceof MissingPackageError)
      throw new UsageError(err.message);
    throw err;
  }
  if (options.tools) modules.push(options.tools);
  hooks.planned?.(plan.server, loaded, file);
  const loadTools = hooks.loadTools ?? (async (module: string, server: ToolServer) => resolveTools(await loadToolsModule(module), server));
  for (const module of modules) {
    try {
      plan.server.addTool(...(await loadTools(module, plan.server)));
    } catch (err) {
      if (err instanceof ToolDefinitionError) throw new UsageError(err.message);
      throw err;
    }
  }
  // In the config's order, outermost first (server.use).
  for (const module of middleware) {
    const loaded = await loadMiddlewareModule(module);
    if (typeof loaded === 'function') plan.server.use(loaded);
    else plan.server.use(loaded.method!, loaded.middleware);
  }
  return { plan, state };
}

function parsePort(value: string | number): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(value)}`);
  return port;
}

function parseGrace(value: string): number {
  const ms = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(ms)) throw new UsageError(`--shutdown-grace must be a whole number of milliseconds (0 to 999999999), got ${JSON.stringify(value)}`);
  return ms;
}

async function serveOverHttp(
  plan: ServerPlan,
  host: string,
  port: number,
  io: CliIo,
  shutdown: ShutdownRequests,
  graceMs: number,
  console_: ConsoleBesideServer | undefined,
  version: string,
  hooks: ServeHooks,
): Promise<number> {
  const { server } = plan;
  let handle: Awaited<ReturnType<typeof serveHttp>>;
  try {
    handle = await serveHttp(server, { ...plan.http, host, port, ...(console_ ? { fallback: console_.route } : {}) });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${port} on ${host} is already in use; pick another with --port`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on host ${JSON.stringify(host)}`);
    throw err;
  }
  io.stderr(`toolwright: serving ${server.tools.size} tool(s) on ${handle.url}\n`);
  if (plan.authProxy) io.stderr(`toolwright: users sign in at the identity provider; its redirect URI for toolwright is ${plan.authProxy.callbackUrl}\n`);
  const consoleUrl = console_?.start(server, handle, version, io, hooks.consoleRoutes);
  const stopHooks = hooks.serving?.(server, consoleUrl);
  const reason = await shutdown.requested;
  stopHooks?.();
  announceShutdown(reason, graceMs, server, io);
  await console_?.close();
  // Stop accepting, let calls in flight answer (or stop them after the grace), close every connection.
  await handle.close({ graceMs });
  await plan.authProxy?.close();
  server.close(); // commits and closes the audit trail
  return stopped(reason, io, server);
}

async function serveOverStdio(server: ToolServer, io: CliIo, shutdown: ShutdownRequests, graceMs: number, hooks: ServeHooks): Promise<number> {
  const handle = serveStdio(server);
  const stopHooks = hooks.serving?.(server, undefined);
  // Started by a person at a terminal rather than by a client: say what this is and how to leave.
  if (process.stdin.isTTY)
    io.stderr(`toolwright: serving ${server.tools.size} tool(s) over stdio: an MCP client speaks JSON-RPC on stdin/stdout (press Ctrl-C to stop)\n`);
  const reason = await Promise.race([handle.closed.then(() => undefined), shutdown.requested]);
  stopHooks?.();
  if (reason) {
    announceShutdown(reason, graceMs, server, io);
    // Stop reading stdin, let calls in flight answer (or stop them after the grace), write the answers.
    await handle.close({ graceMs });
  }
  server.close(); // commits and closes the audit trail
  // Nothing more will be read: let go of stdin so the process can end now.
  process.stdin.destroy();
  if (!reason) reportAuditLosses(server, io);
  return reason ? stopped(reason, io, server) : ExitCode.ok;
}

/**
 * Says the shutdown has begun, and has the server's drain say what it does past the grace in
 * the CLI's words too: stderr stays one format, not a JSON log line among the CLI's sentences.
 */
function announceShutdown(reason: ShutdownReason, graceMs: number, server: ToolServer, io: CliIo): void {
  const calls = server.callsInFlight;
  const waiting = calls ? `; ${calls} call(s) in flight have ${graceMs} ms to finish (another signal exits at once)` : '';
  io.stderr(`toolwright: ${reason}: shutting down${waiting}\n`);
  server.drainReporter = (event) => {
    if (event.kind === 'stopping') io.stderr(`toolwright: ${event.calls} call(s) still running after the ${graceMs} ms grace: stopping them\n`);
    else io.stderr(`toolwright: ${event.calls} call(s) still unanswered after being stopped; closing anyway\n`);
  };
}

function stopped(reason: ShutdownReason, io: CliIo, server: ToolServer): number {
  reportAuditLosses(server, io);
  io.stderr('toolwright: stopped\n');
  return reason === 'uncaughtException' ? ExitCode.failure : ExitCode.ok;
}

function tryMkdirPrivate(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    // The audit trail's start-up check says what is wrong with it, in its own words.
  }
}
