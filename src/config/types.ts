import type { UpstreamEntry } from '../gateway/gateway.js';
import type { AllowedCommand } from '../policy/commands.js';
import type { ApprovalMode } from '../server/pipeline/index.js';
import type { LimitOptions } from '../server/server.js';
import type { ResourceServerOptions } from '../policy/auth/options.js';
import type { AuthProxyOptions } from '../auth-proxy/options.js';
import type { HttpLimitOptions } from '../transports/http-limits.js';
import type { TaskMode } from '../server/primitives/tasks/policy.js';
import type { StateFailurePolicy } from '../state/index.js';

/**
 * toolwright.config.{json,yaml}: which toolsets to serve and how, server
 * options, and extra tool modules. Its published JSON Schema is
 * schema/toolwright.config.schema.json; relative paths are relative to the file.
 */
export interface ToolwrightConfig {
  $schema?: string;
  server?: ServerConfig;
  /** Exactly the toolsets listed (unless `enabled: false`); absent, no built-in toolset. With no config file at all, `toolwright serve` offers fs (./workspace), csv, time and math. */
  toolsets?: ToolsetsConfig;
  /** Modules whose default export is an array of tools, or a function (server) => tools. */
  tools?: string[];
  /** Modules whose default export is a middleware `(ctx, next) => result` or `{ method, middleware }`, added in order (docs/middleware.md). */
  middleware?: string[];
  /** Folders whose files are served as read-only resources (listed, and read through the same sandbox rules as the fs tools). */
  resources?: ResourcesConfig;
  /** A folder of prompt files (Markdown with YAML front matter; docs/server.md#prompt-files-and-resource-folders). */
  prompts?: PromptsConfig;
  /** Agent skills served by the Skills extension (docs/skills.md). */
  skills?: SkillsConfig;
  /** Other MCP servers and HTTP APIs mounted as this server's own tools, by name (docs/gateway.md). */
  upstreams?: Record<string, UpstreamEntry>;
  /** How `tools/list` shows the catalogue: `mode: search` lists only search_tools and call_tool (docs/gateway.md#search-mode-catalogues-too-large-for-a-models-context). */
  catalog?: CatalogConfig;
}

export interface CatalogConfig {
  /** `list` (default): every tool is listed; `search`: search_tools and call_tool over the whole catalogue. */
  mode?: 'list' | 'search';
  /** Matches search_tools returns when the caller gives no limit (1 to 50, default 10). */
  matches?: number;
}

export interface ResourcesConfig {
  /** Directories, relative to the config file; with several, URIs start with the folder's name. */
  folders: Array<string | { path: string; name?: string }>;
  /** URI scheme of the files (default `folder`): `folder:///notes/todo.md`. */
  scheme?: string;
  /** Most files listed in resources/list (default 1000); any file is readable through the template. */
  maxListed?: number;
  /** Largest file read, in bytes (default 10 MiB). */
  maxReadBytes?: number;
  /** Extra names never served (globs), added to the fs toolset's defaults (.env*, *.pem, *.key, .git, …). */
  deny?: string[];
}

export interface SkillsConfig {
  /** A folder of skill folders, relative to the config file. */
  folder: string;
  /** Largest file served, in bytes (default 10 MiB). */
  maxFileBytes?: number;
  /** Extra names never served (globs), added to the fs sandbox's deny list. */
  deny?: string[];
}

export interface PromptsConfig {
  /** Every *.md file in it is a prompt. */
  folder: string;
}

export interface ServerConfig {
  name?: string;
  instructions?: string;
  transport?: 'http' | 'stdio';
  host?: string;
  port?: number;
  path?: string;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  approval?: ApprovalMode;
  timeoutMs?: number;
  pageSize?: number;
  maxBodyBytes?: number;
  /** HTTP deadlines, connection and stream caps, and the failed-authentication throttle (see HttpLimitOptions). */
  http?: HttpLimitOptions;
  /** HTTP authorization: OAuth 2.1 resource server and/or API keys, and the scopes each tool needs (see ResourceServerOptions). */
  auth?: ResourceServerOptions & { proxy?: AuthProxyConfig };
  /**
   * Serve HTTP on a non-loopback address with no authentication configured.
   * Off: `toolwright serve` refuses to start there (every tool would be open
   * to the network). Same as --allow-unauthenticated-network.
   */
  allowUnauthenticatedNetwork?: boolean;
  /** On SIGTERM/SIGINT, how long calls in flight may finish before they are stopped (default 10000). Same as --shutdown-grace. */
  shutdownGraceMs?: number;
  limits?: LimitOptions;
  /** Long-running calls as tasks: where they are kept (a SQLite file, relative to the config), TTL, polling interval, modes; false: no tasks. */
  tasks?:
    | false
    | {
        store?: string;
        leaseMs?: number;
        ttlMs?: number | null;
        pollIntervalMs?: number;
        maxActive?: number;
        defaultMode?: TaskMode;
        tools?: Record<string, TaskMode>;
      };
  /**
   * false: no audit trail. Default: SQLite audit.db in the state folder (docs/audit.md, "Where state lives").
   * `postgres`: a postgres:// URL (`${NAME}` expands from the environment): the trail in
   * PostgreSQL instead of SQLite (SQLite as well only when `sqlite` names a file).
   */
  audit?: false | { sqlite?: string | false; postgres?: string; jsonl?: string; retention?: AuditRetentionConfig | false; onFailure?: AuditFailurePolicy };
  /**
   * Shared state for several instances (docs/scale-out.md): `redis` is a redis:// or rediss://
   * URL (`${NAME}` expands from the environment), never logged or shown with its password.
   */
  state?: { redis: string; keyPrefix?: string; onFailure?: StateFailurePolicy };
  /** The key that signs `requestState` (`${NAME}` expands from the environment): every instance behind one load balancer must have the same. */
  requestStateSecret?: string;
}

/**
 * When an audit record cannot be written. 'refuse' (default): the trail is checked at start-up,
 * and after a failed write requests are refused until it can be written again. 'warn': serve
 * on, with one warning and a count of the records lost.
 */
export type AuditFailurePolicy = 'refuse' | 'warn';

/** How long the trail keeps records (default 30 days, and 256 MiB in SQLite or 1,000,000 records in PostgreSQL); false keeps every record. */
export interface AuditRetentionConfig {
  /** Delete records older than this many days (default 30; false: no age bound). */
  maxAgeDays?: number | false;
  /** SQLite: delete the oldest records while the database's pages in use exceed this (default 268435456, 256 MiB; false: no size bound). */
  maxBytes?: number | false;
  /** PostgreSQL: keep only the newest this many records (default 1,000,000; false: no row bound). */
  maxRows?: number | false;
  /** How often the server prunes in the background (default 600). */
  intervalSeconds?: number;
}

interface Toggle {
  /** false turns a listed toolset off without deleting its settings. */
  enabled?: boolean;
}

export interface FsConfig extends Toggle {
  roots?: string[];
  /** Create missing roots (default true). */
  createRoots?: boolean;
  deny?: string[];
  denyMode?: 'add' | 'replace';
  readOnly?: boolean;
  maxReadBytes?: number;
  maxWriteBytes?: number;
  deleteApprovalBytes?: number;
  /** Also serve the roots as read-only resources (toolwright-fs:///{+path}), through the same sandbox (default false). */
  resources?: boolean;
}

export interface ToolsetsConfig {
  fs?: FsConfig;
  /** Reads inside the fs roots (or its own `roots` when fs is off). */
  csv?: Toggle & { roots?: string[]; maxBytes?: number; maxDistinct?: number; maxColumns?: number };
  time?: Toggle;
  math?: Toggle;
  exec?: Toggle & {
    root: string;
    commands: Record<string, AllowedCommand>;
    env?: { pass?: string[]; set?: Record<string, string> };
    timeoutMs?: number;
    maxOutputBytes?: number;
  };
  http?: Toggle & {
    allowedHosts?: string[];
    deniedHosts?: string[];
    allowPrivateNetworks?: boolean;
    allowedCidrs?: string[];
    /** Ports fetches may connect to (default 80 and 443); a list replaces the default. */
    allowedPorts?: number[];
    methods?: Array<'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS'>;
    maxResponseBytes?: number;
    maxRequestBodyBytes?: number;
    timeoutMs?: number;
    maxRedirects?: number;
    userAgent?: string;
  };
  github?: Toggle & {
    repos: string[];
    tokenEnv?: string;
    baseUrl?: string;
    requestTimeoutMs?: number;
    anonymousReads?: boolean;
    approveCreate?: boolean;
  };
  weather?: Toggle & {
    geocodingUrl?: string;
    forecastUrl?: string;
    requestTimeoutMs?: number;
    language?: string;
  };
}

/** `server.auth.proxy` as written in a config: the code options, with a file path for the store and a switch for metadata documents. */
export type AuthProxyConfig = Omit<AuthProxyOptions, 'store' | 'clientMetadataDocuments' | 'audit' | 'auditInstance' | 'auditGuard' | 'auditFailure'> & {
  store?: string;
  clientMetadataDocuments?: boolean;
};
