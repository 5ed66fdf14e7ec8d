import type { ScopePolicyOptions } from '../policy/auth/scope-policy.js';
import type { RateLimitOptions } from '../policy/rate-limit.js';
import type { AuditSink } from '../audit/record.js';
import type { TaskStore } from '../tasks/store.js';
import type { EventBus } from '../state/bus.js';
import type { SessionRecords } from '../state/sessions.js';
import type { StateOptions } from '../state/index.js';
import type { TracingOptions } from '../tracing/options.js';
import type { MiddlewareModule } from './middleware.js';
import type { PrimitiveContext } from './primitive-context.js';
import type { Primitive } from './primitives/method-table.js';
import type { Prompt } from './primitives/prompts/index.js';
import type { Resource, ResourceTemplate } from './primitives/resources/index.js';
import type { TasksOptions } from './primitives/tasks/options.js';
import type { SkillCatalog, SkillsFolderOptions } from './primitives/skills/index.js';
import type { AuditFailurePolicy } from './pipeline/audit-guard.js';
import type { ApprovalMode } from './pipeline/index.js';
import type { Logger } from '../runtime/logger.js';
import type { ResultStoreOptions } from '../state/result-store.js';
import type { Tool } from './tool.js';

// ToolServer's options, in a file of their own (server.ts holds the server itself).

export interface ToolServerOptions {
  name?: string;
  version?: string;
  title?: string;
  /** Guidance for the model on how to use this server (sent by discover and initialize). */
  instructions?: string;
  tools?: Tool[];
  /** Resources at fixed URIs (`server.resources.add` adds more at run time). */
  resources?: Resource[];
  /** Resource templates (RFC 6570 URI templates; `server.resources.addTemplate` adds more). */
  // biome-ignore lint/suspicious/noExplicitAny: each entry has its own argument type; unknown would refuse every typed one
  resourceTemplates?: ResourceTemplate<any>[];
  /** Prompt templates (`server.prompts.add` adds more). */
  // biome-ignore lint/suspicious/noExplicitAny: each entry has its own argument type; unknown would refuse every typed one
  prompts?: Prompt<any>[];
  /** Tools per `tools/list` page (default 100). */
  pageSize?: number;
  /** Freshness hint for modern list and discover results (default 5 minutes). */
  listTtlMs?: number;
  /** Default time a tool call may run (default 60 s); a tool's own `timeoutMs` wins. */
  timeoutMs?: number;
  logger?: Logger;
  /**
   * Which calls wait for the user's approval through an elicitation:
   * 'destructive' (default: tools with `destructiveHint: true` or `approval: 'always'`),
   * 'always' (every call) or 'never'.
   */
  approval?: ApprovalMode;
  /**
   * Key that signs `requestState` (multi round-trip requests). Set the same
   * secret on every instance behind a load balancer; default: random per process.
   * Required with `state` (shared state means several instances).
   */
  requestStateSecret?: string | Buffer;
  /** Names this instance in its audit records (default `host:pid`): which of several answered. */
  instanceId?: string;
  /** How long a `requestState` stays valid (default 10 minutes). */
  requestStateTtlMs?: number;
  limits?: LimitOptions;
  /**
   * Which scopes each tool needs and who may know of it (config: the scope
   * keys of `server.auth`). Enforced for callers whose credentials carry
   * scopes; tools' own `scopes` apply without it.
   */
  scopes?: ScopePolicyOptions;
  /**
   * Where every call is recorded (default: SQLite at `.toolwright/audit.db` under
   * $TOOLWRIGHT_AUDIT_DIR or the working directory, kept in memory instead when the server
   * is used through createInMemoryPair); false turns auditing off.
   */
  audit?: AuditSink | false;
  /** When a record cannot be written: 'refuse' further requests until it can (default), or 'warn' once and count the losses (see AuditFailurePolicy). */
  auditFailure?: AuditFailurePolicy;
  /**
   * Agent skills served by the Skills extension (SEP-2640, docs/skills.md): a
   * folder of skill folders, each with a SKILL.md and its files, loaded and
   * checked at construction (a bad SKILL.md throws, naming file:line), or
   * a SkillCatalog loaded already.
   */
  skills?: string | SkillsFolderOptions | SkillCatalog;
  /**
   * Protocol modules beyond the standard primitives (tools, resources,
   * prompts, completion), registered after them: each adds its methods and
   * capabilities, and may wrap a method registered before it.
   */
  primitives?: (context: PrimitiveContext) => Primitive[];
  /**
   * Middleware around requests, outermost first, as `server.use` adds it: a
   * middleware for every method, or `{ method, middleware }` for one
   * (docs/middleware.md).
   */
  middleware?: readonly MiddlewareModule[];
  /**
   * OpenTelemetry (docs/tracing.md): a SERVER span and a
   * `mcp.server.operation.duration` point per request, by the MCP semantic
   * conventions, through `@opentelemetry/api`. On by default and free when
   * the application registers no OpenTelemetry SDK; `{ recordArguments,
   * recordResults }` opt in to tool arguments and results on spans; false: off.
   */
  tracing?: boolean | TracingOptions;
  /**
   * Long-running calls as tasks (the io.modelcontextprotocol/tasks extension):
   * where tasks are kept, their TTL and polling interval, and which tools
   * become tasks (a tool's own `task`, the operator's per-tool modes and
   * default). false: no tasks (the extension is not advertised).
   */
  tasks?: ServerTasksOptions | false;
  /**
   * What this instance tells the others behind the same load balancer (docs/deployment.md): list
   * changes, resource updates, task status, and tasks/cancel or tasks/update for a task another
   * instance runs. Default: in-process (one instance). `server.state.redis` in a config file
   * makes it a Redis bus (src/state/redis/bus.ts). `server.close()` closes it.
   */
  bus?: EventBus;
  /**
   * Where legacy (2025-11-25-era) HTTP session records are kept, so that any instance serves a
   * request carrying `Mcp-Session-Id` (docs/deployment.md). Default: none, each session lives in
   * the process that opened it; `server.state.redis` keeps them in Redis. `server.close()` closes it.
   */
  sessionRecords?: SessionRecords;
  /**
   * Shared state for several instances behind a load balancer (docs/scale-out.md):
   * `{ redis: 'redis://…' }` keeps rate limits, the failed-authentication
   * throttle and stored results in Redis; `results` / `createLimiter` plug in
   * other engines. Default: each process keeps its own, in memory.
   */
  state?: StateOptions;
}

/** What a graceful drain does past its grace: stop the calls still running; and if some stay unanswered even then. */
export type DrainEvent = { kind: 'stopping'; calls: number } | { kind: 'unanswered'; calls: number };

export interface ServerTasksOptions extends Partial<Omit<TasksOptions, 'store'>> {
  /** A TaskStore, or the SQLite file to keep tasks in (default `.toolwright/tasks.db`; with `state.redis`, Redis). */
  store?: TaskStore | string;
  /**
   * The built-in SQLite store: how long this process's claim on its unfinished
   * tasks lasts unless renewed (default 30,000 ms, at least 1,000). Another
   * server sharing the file marks them failed only once it runs out.
   */
  leaseMs?: number;
}

export interface LimitOptions {
  /** Largest arguments object, in bytes of JSON (default 1 MiB). */
  maxArgumentBytes?: number;
  /** Largest result sent inline; larger content travels by resource_link (default 1 MiB). */
  maxResultBytes?: number;
  /** Calls running at once (default 64). */
  maxInFlight?: number;
  /** Calls waiting for a slot; beyond this a call is refused at once (default 256). */
  maxQueued?: number;
  /**
   * Per-caller and per-tool rate limits, on by default (tools.mdx: servers MUST
   * rate limit tool invocations): 1,200 calls a minute per caller across tools,
   * 6,000 a minute per tool across callers (DEFAULT_RATE_LIMIT). A rule left out
   * keeps its default; `perPrincipal: false` / `perTool: false` drop one;
   * `rateLimit: false` switches rate limiting off.
   */
  rateLimit?: RateLimitOptions | false;
  /** Where large results are kept for `resources/read`. */
  resultStore?: ResultStoreOptions;
}
