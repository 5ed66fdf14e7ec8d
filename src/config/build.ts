import { isAbsolute, join, resolve } from 'node:path';
import { openDefaultTrail } from '../audit/default-sink.js';
import { FanoutAuditSink } from '../audit/fanout-sink.js';
import { MissingPackageError } from '../runtime/optional-package.js';
import { sqliteDriverInstalled } from '../audit/sqlite-driver.js';
import { JsonlAuditSink } from '../audit/jsonl-sink.js';
import type { AuditSink } from '../audit/record.js';
import { PostgresAuditSink } from '../audit/postgres/sink.js';
import { SqliteAuditSink } from '../audit/sqlite-sink.js';
import type { ResourceServerOptions } from '../policy/auth/options.js';
import { ScopePolicy } from '../policy/auth/scope-policy.js';
import { TokenVerifier } from '../policy/auth/token-verifier.js';
import { PathSandbox } from '../policy/paths.js';
import { ToolServer, type ToolServerOptions } from '../server/server.js';
import type { Tool } from '../server/tool.js';
import { csvTools } from '../toolsets/csv/index.js';
import { execTools } from '../toolsets/exec/index.js';
import { fsTools } from '../toolsets/fs/index.js';
import { githubTools } from '../toolsets/github/index.js';
import { httpTools } from '../toolsets/http/index.js';
import { mathTools } from '../toolsets/math/index.js';
import { timeTools } from '../toolsets/time/index.js';
import { weatherTools } from '../toolsets/weather/index.js';
import type { HttpServeOptions } from '../transports/http-server.js';
import { postgresTrailOf, sqliteTrailOf } from './audit-trail.js';
import { expandEnv } from './expand-env.js';
import type { UpstreamEntry } from '../gateway/gateway.js';
import { sharedStateOf } from './state.js';
import { tasksInRedis } from '../state/backends.js';
import type { CatalogConfig, ServerConfig, ToolsetsConfig, ToolwrightConfig } from './types.js';
import { ConfigError } from './validate.js';
import { addConfiguredPrimitives, skillsOf } from './primitives.js';
import { authProxyOf } from './auth-proxy.js';
import type { AuthProxy } from '../auth-proxy/facade.js';

/**
 * What `toolwright serve` (and `npm start`) serves with no config and no --tools: files in
 * ./workspace, CSV analysis, time and math. A config gets built-in tools only by naming them.
 */
export const DEFAULT_TOOLSETS: ToolsetsConfig = { fs: { roots: ['./workspace'] }, csv: {}, time: {}, math: {} };

export interface ServerPlan {
  server: ToolServer;
  transport?: 'http' | 'stdio';
  http: HttpServeOptions;
  /** The operator accepts serving a non-loopback address without authentication (server.allowUnauthenticatedNetwork). */
  allowUnauthenticatedNetwork?: boolean;
  /** Grace for calls in flight on SIGTERM/SIGINT (server.shutdownGraceMs). */
  shutdownGraceMs?: number;
  /**
   * The config's `upstreams:`, to mount (`toolwright serve` does, loading the gateway only then;
   * in code: `Gateway` from toolwright/gateway, with `baseDir` as its cwd).
   */
  upstreams?: { entries: Record<string, UpstreamEntry>; baseDir: string; file: string };
  /** The config's `catalog:` (search mode is turned on by `toolwright serve`, loading it only then). */
  catalog?: CatalogConfig;
  /** The authorization-server facade (server.auth.proxy): its routes are in `http.routes`; its callback URL is printed at start-up. */
  authProxy?: AuthProxy;
}

/**
 * Whether HTTP callers must authenticate before any request is served. The one
 * place that knows every way to configure authentication: `toolwright serve`
 * refuses a non-loopback bind without it. Add each new mode (server.auth:
 * OAuth resource server, API keys) here.
 */
export function authenticationConfigured(plan: ServerPlan): boolean {
  return plan.http.authenticate !== undefined || plan.http.auth !== undefined;
}

/**
 * Builds the server a config describes (the toolsets it names, none without `toolsets`; tool
 * modules are the caller's).
 * `stateDir` (see locateState) is where the default audit trail and task store go; without
 * it, the ToolServer's own defaults (the working directory).
 */
export function buildServer(config: ToolwrightConfig, baseDir: string, version: string, file = 'the config', stateDir?: string): ServerPlan {
  const s = config.server ?? {};
  let auth = s.auth && !s.auth.proxy ? checkedAuth(s.auth, file) : undefined;
  const server = new ToolServer({
    name: s.name ?? 'toolwright',
    version,
    instructions: s.instructions,
    timeoutMs: s.timeoutMs,
    pageSize: s.pageSize,
    approval: s.approval,
    limits: s.limits,
    audit: auditSink(s.audit, baseDir, stateDir, file),
    auditFailure: (s.audit || undefined)?.onFailure,
    scopes: auth ?? s.auth,
    tasks: tasksOf(s.tasks, baseDir, stateDir, s.state),
    skills: skillsOf(config.skills, baseDir, file),
    ...sharedState(s, file),
  } satisfies ToolServerOptions);
  const proxied = s.auth?.proxy ? proxyOf(s, baseDir, stateDir, server, file) : undefined;
  if (proxied) auth = checkedAuth(proxied.auth, file);
  // Only the toolsets the config names: a config that lists its own tools must not also hand
  // the model write_file and delete_file (nor create ./workspace) unasked.
  const { tools, fsSandbox } = toolsetTools(config.toolsets ?? {}, baseDir, file);
  try {
    server.addTool(...tools);
  } catch (err) {
    throw new ConfigError(file, [(err as Error).message]);
  }
  addConfiguredPrimitives(server, config, baseDir, file, fsSandbox);
  return {
    server,
    ...(config.upstreams ? { upstreams: { entries: config.upstreams, baseDir, file } } : {}),
    ...(config.catalog ? { catalog: config.catalog } : {}),
    transport: s.transport,
    http: {
      host: s.host,
      port: s.port,
      path: s.path,
      allowedHosts: s.allowedHosts,
      allowedOrigins: s.allowedOrigins,
      maxBodyBytes: s.maxBodyBytes,
      auth,
      ...(proxied ? { routes: proxied.proxy.routes } : {}),
      ...s.http,
    },
    allowUnauthenticatedNetwork: s.allowUnauthenticatedNetwork,
    shutdownGraceMs: s.shutdownGraceMs,
    ...(proxied ? { authProxy: proxied.proxy } : {}),
  };
}

/**
 * server.tasks: the store path is relative to the config file (default: tasks.db in the state
 * folder, or under $TOOLWRIGHT_AUDIT_DIR as the server's own default has it; with server.state.redis, Redis).
 */
function tasksOf(tasks: ServerConfig['tasks'], baseDir: string, stateDir: string | undefined, state: ServerConfig['state']): ToolServerOptions['tasks'] {
  if (tasks === false) return tasks;
  // Where the server would keep tasks itself (Redis, with server.state.redis and no store named) no file is named for it.
  const inRedis = tasksInRedis(state, tasks?.store);
  // Without better-sqlite3 (an optional peer dependency) no file either: the server keeps tasks in memory (createDefaultTaskStore).
  const fallback = stateDir !== undefined && !process.env.TOOLWRIGHT_AUDIT_DIR && !inRedis && sqliteDriverInstalled() ? join(stateDir, 'tasks.db') : undefined;
  if (tasks === undefined) return fallback === undefined ? undefined : { store: fallback };
  return { ...tasks, store: tasks.store === undefined ? fallback : resolve(baseDir, tasks.store) };
}

/**
 * server.auth, checked now (no I/O: keys and metadata are fetched on first
 * use) so a mistake the schema cannot see (an unset clientSecretEnv, a bad
 * scope) stops start-up with a message naming the key.
 */
function checkedAuth(configured: ResourceServerOptions, file: string): ResourceServerOptions {
  try {
    // An API key's hash may be `${NAME}`: one committed config, each deployment with its own key (examples/scale-out).
    const auth = configured.apiKeys
      ? { ...configured, apiKeys: configured.apiKeys.map((entry, i) => ({ ...entry, hash: expandEnv(entry.hash, `apiKeys[${i}].hash`) })) }
      : configured;
    new TokenVerifier({ ...auth, resource: auth.resource ?? 'http://127.0.0.1/mcp' });
    new ScopePolicy(auth);
    return auth;
  } catch (err) {
    const message = (err as Error).message;
    throw new ConfigError(file, [message.startsWith('auth') ? `server.${message}` : `server.auth.${message}`]);
  }
}

/** server.auth.proxy: the facade and the resource-server options that accept its tokens; a problem names its key. */
function proxyOf(s: ServerConfig, baseDir: string, stateDir: string | undefined, server: ToolServer, file: string): ReturnType<typeof authProxyOf> {
  try {
    return authProxyOf(s.auth as Parameters<typeof authProxyOf>[0], s, baseDir, stateDir, server.logger, {
      sink: server.audit,
      instance: server.instanceId,
      guard: server.auditGuard,
    });
  } catch (err) {
    throw new ConfigError(file, [(err as Error).message]);
  }
}

/** server.state and server.requestStateSecret, `${NAME}` expanded; a problem names its key. */
function sharedState(s: ServerConfig, file: string): Pick<ToolServerOptions, 'state' | 'requestStateSecret'> {
  try {
    return sharedStateOf(s.state, s.requestStateSecret);
  } catch (err) {
    throw new ConfigError(file, [(err as Error).message]);
  }
}

function postgresTrail(audit: ServerConfig['audit'], file: string): ReturnType<typeof postgresTrailOf> {
  try {
    return postgresTrailOf(audit);
  } catch (err) {
    throw new ConfigError(file, [(err as Error).message]);
  }
}

function auditSink(audit: ServerConfig['audit'], baseDir: string, stateDir: string | undefined, file: string): AuditSink | false | undefined {
  if (audit === undefined && stateDir === undefined) return undefined; // the server's default
  if (audit === false) return false;
  const sinks: AuditSink[] = [];
  const trail = sqliteTrailOf(audit, baseDir, process.env, stateDir);
  // No file named: the default trail (SQLite, or JSON lines beside it without better-sqlite3); a file named is SQLite.
  if (trail)
    sinks.push(audit?.sqlite === undefined ? openDefaultTrail(trail.file, trail.retention) : new SqliteAuditSink(trail.file, { retention: trail.retention }));
  if (audit === undefined) return sinks[0];
  const postgres = postgresTrail(audit, file);
  if (postgres) sinks.push(new PostgresAuditSink(postgres.url, { retention: postgres.retention }));
  if (audit.jsonl) sinks.push(new JsonlAuditSink(resolve(baseDir, audit.jsonl)));
  if (sinks.length === 0) return false;
  return sinks.length === 1 ? sinks[0] : new FanoutAuditSink(sinks);
}

/** The tools of every enabled toolset; a toolset's own refusal of its options names the toolset. */
function toolsetTools(toolsets: ToolsetsConfig, baseDir: string, file: string): { tools: Tool[]; fsSandbox?: PathSandbox } {
  const on = <T extends { enabled?: boolean }>(c: T | undefined): c is T => c !== undefined && c.enabled !== false;
  const tools: Tool[] = [];
  const attempt = (name: string, build: () => Tool[]) => {
    try {
      tools.push(...build());
    } catch (err) {
      // A valid config whose toolset's package is not installed: the set-up problem, with its fix.
      if (err instanceof MissingPackageError) throw err;
      throw new ConfigError(file, [`toolsets.${name}: ${(err as Error).message}`]);
    }
  };
  let sandbox: PathSandbox | undefined;
  let fsSandbox: PathSandbox | undefined;
  const sandboxFor = (roots: string[] | undefined) =>
    PathSandbox.create({
      roots: roots ?? ['./workspace'],
      cwd: baseDir,
      missingRoots: toolsets.fs?.createRoots === false ? 'refuse' : 'create',
      deny: toolsets.fs?.deny,
      denyMode: toolsets.fs?.denyMode,
      maxReadBytes: toolsets.fs?.maxReadBytes,
      maxWriteBytes: toolsets.fs?.maxWriteBytes,
    });
  const { fs, csv, time, math, exec, http, github, weather } = toolsets;
  if (on(fs)) {
    attempt('fs', () => {
      sandbox = fsSandbox = sandboxFor(fs.roots);
      return fsTools({ sandbox, readOnly: fs.readOnly, deleteApprovalBytes: fs.deleteApprovalBytes });
    });
  }
  if (on(csv)) {
    attempt('csv', () => {
      const { enabled: _e, roots, ...options } = csv;
      return csvTools({ sandbox: roots || !sandbox ? sandboxFor(roots) : sandbox, ...options });
    });
  }
  if (on(time)) attempt('time', () => timeTools());
  if (on(math)) attempt('math', () => mathTools());
  if (on(exec)) {
    attempt('exec', () => {
      const { enabled: _e, root, ...options } = exec;
      return execTools({ ...options, root: isAbsolute(root) ? root : resolve(baseDir, root) });
    });
  }
  if (on(http)) attempt('http', () => httpTools(withoutToggle(http)));
  if (on(github)) attempt('github', () => githubTools(withoutToggle(github)));
  if (on(weather)) attempt('weather', () => weatherTools(withoutToggle(weather)));
  return { tools, fsSandbox };
}

function withoutToggle<T extends { enabled?: boolean }>(config: T): Omit<T, 'enabled'> {
  const { enabled: _enabled, ...rest } = config;
  return rest;
}
