import { hostname } from 'node:os';
import { ConcurrencyGate } from '../policy/concurrency.js';
import { ScopePolicy, type ScopePolicyOptions } from '../policy/auth/scope-policy.js';
import { RateLimiter, withRateLimitDefaults, type RateLimitOptions } from '../policy/rate-limit.js';
import type { Implementation } from '../protocol/meta.js';
import { DefaultAuditSink } from '../audit/default-sink.js';
import type { AuditSink } from '../audit/record.js';
import { CallsInFlight, ServerShutdown } from './calls-in-flight.js';
import { Connection, type ConnectOptions, type ServerConnection } from './connection.js';
import { Dispatcher } from './dispatcher.js';
import type { PrimitiveContext } from './primitive-context.js';
import { middlewareEntry, type Middleware, type MiddlewareFor, type MiddlewareModule, type AnyMiddleware } from './middleware.js';
import type { TracingOptions } from '../tracing/options.js';
import type { Primitive } from './primitives/method-table.js';
import { PromptRegistry, type Prompt } from './primitives/prompts/index.js';
import { ResourceRegistry, type Resource, type ResourceTemplate } from './primitives/resources/index.js';
import { auditStage } from './pipeline/audit.js';
import { AuditGuard, type AuditFailurePolicy } from './pipeline/audit-guard.js';
import { RequestStateCodec } from './inputs/request-state.js';
import type { ApprovalMode } from './pipeline/index.js';
import { createLogger, type Logger } from './logger.js';
import { ToolRegistry } from './registry.js';
import type { ResultStore, ResultStoreOptions } from './result-store.js';
import { SubscriptionHub } from './subscriptions.js';
import type { Tool } from './tool.js';
import { TasksPrimitive, type TasksOptions } from './primitives/tasks/index.js';
import { createDefaultTaskStore } from '../tasks/default-store.js';
import type { TaskStore } from '../tasks/store.js';
import { InProcessEventBus, type EventBus } from '../state/bus.js';
import { redisConnection } from '../state/redis/connection.js';
import { RedisEventBus } from '../state/redis/bus.js';
import { RedisSessionRecords } from '../state/redis/sessions.js';
import { RedisTaskStore } from '../state/redis/tasks.js';
import type { SessionRecords } from '../state/sessions.js';
import type { CreateLimiter, StateOptions } from '../state/index.js';
import { requireSharedSecret, sharedState, type SharedState } from '../state/shared.js';

/** After stopping the calls that outlived a shutdown's grace, how long their answers may take. */
const STOPPED_CALLS_WAIT_MS = 2_000;

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

/**
 * A tools server for both protocol eras. Build it once; serve it over any
 * number of transports (`serveStdio`, `serveHttp`, the in-memory pair, or
 * one of your own through `connect`).
 */
export class ToolServer {
  readonly tools = new ToolRegistry();
  /** Resources and resource templates; `resources.updated(uri)` tells subscribers a resource changed. */
  readonly resources = new ResourceRegistry();
  readonly prompts = new PromptRegistry();
  readonly logger: Logger;
  readonly info: Implementation;
  /** @internal the protocol engine; transports reach it through `connect` */
  private readonly dispatcher: Dispatcher;
  /** @internal */
  private readonly subscriptions = new SubscriptionHub();
  /** Large results kept for `resources/read` (in memory, or shared: `state`). */
  readonly results: ResultStore;
  /** Builds rate limiters in the shared state (`state`): the HTTP transport's failed-authentication throttle uses it too. Undefined: in process. */
  readonly createLimiter?: CreateLimiter;
  /** @internal */
  private readonly state: SharedState;
  /** The audit sink, if auditing is on. */
  readonly audit?: AuditSink;
  /** The audit trail's health and failure policy: records lost, requests refused (if auditing is on). */
  readonly auditGuard?: AuditGuard;
  /** Which instance this is, as its audit records name it (`instanceId`, default `host:pid`). */
  readonly instanceId: string;
  /** @internal */
  private readonly calls = new CallsInFlight();
  /** @internal the calls' rate limiter (undefined: rate limits off); the console's Limits panel reads its use */
  readonly rateLimiter?: RateLimiter;
  /** Where tasks are kept, unless tasks are off. */
  readonly taskStore?: TaskStore;
  /** What this instance shares with the others (in-process unless `bus` was given). */
  readonly bus: EventBus;
  /** Legacy HTTP session records shared with the other instances, if any. */
  readonly sessionRecords?: SessionRecords;
  /** @internal */
  private draining?: Promise<void>;
  /** Who hears what a graceful drain does past its grace (default: the server's log). `toolwright serve` says it in its own words on stderr. */
  drainReporter?: (event: DrainEvent) => void;

  constructor(options: ToolServerOptions = {}) {
    this.logger = options.logger ?? createLogger();
    this.instanceId = options.instanceId ?? `${hostname()}:${process.pid}`;
    this.info = { name: options.name ?? 'toolwright', version: options.version ?? '0.1.0', ...(options.title ? { title: options.title } : {}) };
    const ttlMs = options.listTtlMs ?? 300_000;
    if (!Number.isInteger(ttlMs) || ttlMs < 0) throw new RangeError('listTtlMs must be a non-negative integer');
    const cache = { ttlMs, cacheScope: 'public' as const };
    const limits = options.limits ?? {};
    requireSharedSecret(options.state, options.requestStateSecret);
    this.state = sharedState(options.state, limits.resultStore, this.logger);
    this.results = this.state.results;
    this.createLimiter = this.state.createLimiter;
    this.audit = options.audit === undefined ? new DefaultAuditSink() : options.audit || undefined;
    if (this.audit) this.auditGuard = new AuditGuard(this.audit, options.auditFailure ?? 'refuse', this.logger);
    const onListenerError = (err: unknown) => this.logger.error({ err }, 'an event listener failed');
    const redis = options.state?.redis;
    this.bus =
      options.bus ??
      (redis ? new RedisEventBus(redisConnection(redis, { keyPrefix: options.state?.keyPrefix }), onListenerError) : new InProcessEventBus(onListenerError));
    this.sessionRecords =
      options.sessionRecords ?? (redis ? new RedisSessionRecords(redisConnection(redis, { keyPrefix: options.state?.keyPrefix })) : undefined);
    this.subscriptions.useBus(this.bus, (err) => this.logger.warn({ err }, 'a change could not be shared with the other instances'));
    const tasks = options.tasks === false ? undefined : (options.tasks ?? {});
    if (tasks) {
      // With state.redis and no store named, tasks are kept in Redis: every instance reads them, on any machine.
      const inRedis = redis !== undefined && tasks.store === undefined;
      this.taskStore =
        typeof tasks.store === 'object'
          ? tasks.store
          : inRedis
            ? new RedisTaskStore(redisConnection(redis, { keyPrefix: options.state?.keyPrefix }), { leaseMs: tasks.leaseMs })
            : createDefaultTaskStore(tasks.store, { leaseMs: tasks.leaseMs });
    }
    this.dispatcher = new Dispatcher({
      registry: this.tools,
      logger: this.logger,
      timeoutMs: options.timeoutMs ?? 60_000,
      requestState: new RequestStateCodec(options.requestStateSecret, options.requestStateTtlMs ?? 600_000),
      approval: options.approval ?? 'destructive',
      maxArgumentBytes: limits.maxArgumentBytes ?? 1024 * 1024,
      maxResultBytes: limits.maxResultBytes ?? 1024 * 1024,
      resultStore: this.results,
      concurrency: new ConcurrencyGate(limits.maxInFlight ?? 64, limits.maxQueued ?? 256),
      rateLimiter: (this.rateLimiter = rateLimiterFor(limits.rateLimit, this.createLimiter)),
      scopePolicy: new ScopePolicy(options.scopes),
      serverInfo: this.info,
      instructions: options.instructions,
      pageSize: options.pageSize ?? 100,
      cacheHints: cache,
      subscriptions: this.subscriptions,
      calls: this.calls,
      outer: this.audit ? [auditStage(this.audit, this.logger, this.auditGuard, this.instanceId)] : [],
      tracing: options.tracing === false ? false : options.tracing === true || options.tracing === undefined ? {} : options.tracing,
      auditSink: this.audit,
      auditGuard: this.auditGuard,
      auditInstance: this.instanceId,
      primitives: (context) => [
        ...(this.taskStore
          ? [
              new TasksPrimitive({
                ...tasks,
                store: this.taskStore,
                bus: this.bus,
                registry: this.tools,
                results: context.results,
                serverInfo: this.info,
                logger: this.logger,
              }),
            ]
          : []),
        ...(options.primitives?.(context) ?? []),
      ],
      resources: this.resources,
      prompts: this.prompts,
    });
    if (options.tools?.length) this.tools.add(...options.tools);
    if (options.resources?.length) this.resources.add(...options.resources);
    if (options.resourceTemplates?.length) this.resources.addTemplate(...options.resourceTemplates);
    if (options.prompts?.length) this.prompts.add(...options.prompts);
    // After the initial tools: only later changes are news to clients.
    this.tools.onChange(() => this.subscriptions.toolsChanged());
    for (const entry of options.middleware ?? []) {
      if (typeof entry === 'function') this.use(entry);
      else this.use(entry?.method as string, entry?.middleware as Middleware);
    }
  }

  /**
   * Adds middleware around every request (`use(mw)`) or one method's
   * (`use('tools/call', mw)`): `mw(ctx, next)` may observe, change
   * `ctx.params` before `await next()`, change the result it returns, answer
   * without calling `next()`, or refuse by throwing an `RpcError` (or, for
   * tools/call, a `ToolError`: an isError result). It runs after the transport
   * authenticated the caller (`ctx.principal`, `ctx.auth`) and before the
   * handler; for tools/call after the tool is found and authorized, the
   * caller rate-limited and the arguments validated (docs/middleware.md has
   * the picture). Middleware added first runs outermost. The pipeline is
   * recomposed here, never per request: a server without middleware pays nothing.
   */
  use(middleware: Middleware): this;
  use<M extends string>(method: M, middleware: MiddlewareFor<M>): this;
  use(methodOrMiddleware: string | Middleware, middleware?: AnyMiddleware): this {
    this.dispatcher.use(middlewareEntry(methodOrMiddleware, middleware));
    return this;
  }

  /**
   * Opens a connection for one client (docs/server.md#write-your-own-transport):
   * the transport hands it each inbound message with `receive` and sends
   * the replies it returns; what the server sends on its own goes to
   * `options.send`. `close()` it when the client is gone.
   */
  connect(options: ConnectOptions): ServerConnection {
    return new Connection(this.dispatcher, options);
  }

  /** Ends open subscriptions with their completion result (a transport shutting down calls it). */
  endSubscriptions(): void {
    this.dispatcher.close();
  }

  /** Tool calls in flight on every transport. */
  get callsInFlight(): number {
    return this.calls.size;
  }

  /**
   * The first half of a graceful shutdown (what `toolwright serve` does on
   * SIGTERM, through the transports' `close({ graceMs })`): from now on new
   * calls are refused with an isError result, open subscriptions end with
   * their completion result, and calls in flight get `graceMs` to finish.
   * Those still running then have their signal aborted and are answered with
   * an isError result saying the server is shutting down (a call its client
   * cancelled gets no answer; one the server stopped does). Resolves once
   * every call has its answer and the audit trail has its records; a handler
   * that ignores its signal is not waited for (its late result is dropped).
   * Idempotent: later calls get the first drain's promise. It stops calls on
   * every transport this server is served on; then close the transports and
   * the server. What it does past the grace goes to `drainReporter`, else
   * the server's log.
   */
  drain(graceMs: number): Promise<void> {
    if (!(Number.isFinite(graceMs) && graceMs >= 0)) throw new RangeError('graceMs must be a non-negative number');
    return (this.draining ??= this.drainCalls(graceMs, this.drainReporter ?? ((event) => this.logDrainEvent(event, graceMs))));
  }

  private logDrainEvent(event: DrainEvent, graceMs: number): void {
    if (event.kind === 'stopping') this.logger.warn({ calls: event.calls, graceMs }, 'shutting down: stopping the calls still running after the grace period');
    else this.logger.error({ calls: event.calls }, 'shutting down: calls still unanswered after being stopped');
  }

  private async drainCalls(graceMs: number, report: (event: DrainEvent) => void): Promise<void> {
    this.calls.closed = true;
    this.endSubscriptions();
    if (!(await this.calls.idle(graceMs))) {
      report({ kind: 'stopping', calls: this.calls.size });
      this.calls.abortAll(new ServerShutdown());
      // Stopped calls answer at once (the handler runner races the abort); the bound covers a sink that hangs.
      if (!(await this.calls.idle(STOPPED_CALLS_WAIT_MS))) report({ kind: 'unanswered', calls: this.calls.size });
    }
    this.audit?.flush?.();
  }

  /** Shuts the server down: ends subscriptions and closes the audit sink (committing what it holds) and its hold on shared state. Transports close themselves. */
  close(): void {
    this.endSubscriptions();
    this.audit?.close?.();
    this.taskStore?.close();
    this.bus.close().catch(() => undefined);
    this.sessionRecords?.close().catch(() => undefined);
    void this.state.close().catch(() => {});
  }

  /** Where shared state lives, fit to show: 'memory', or the Redis URL without its password and the key prefix. */
  get stateLocation(): string {
    return this.state.where;
  }

  /**
   * Resolves true once the shared state (`state.redis`) can be reached, false
   * if it cannot within its connect timeout (it keeps reconnecting on its own,
   * and calls that need it fail until then). In-process state: true at once.
   */
  stateReady(): Promise<boolean> {
    return this.state.ready();
  }

  /** Registers tools; throws ToolDefinitionError (and registers none) if any is invalid. */
  addTool(...tools: Tool[]): this {
    this.tools.add(...tools);
    return this;
  }
}

function rateLimiterFor(option: RateLimitOptions | false | undefined, createLimiter: CreateLimiter | undefined): RateLimiter | undefined {
  const options = withRateLimitDefaults(option);
  // A rateLimit option's own createLimiter wins over the shared state's.
  if (!options) return undefined;
  return new RateLimiter(options.createLimiter || !createLimiter ? options : { ...options, createLimiter });
}
