import { hostname } from 'node:os';
import { ConcurrencyGate } from '../policy/concurrency.js';
import { ScopePolicy } from '../policy/auth/scope-policy.js';
import { RateLimiter, withRateLimitDefaults, type RateLimitOptions } from '../policy/rate-limit.js';
import type { Implementation } from '../protocol/meta.js';
import type { CacheHints } from '../protocol/result.js';
import type { AuditSink } from '../audit/record.js';
import { CallsInFlight, ServerShutdown } from './calls-in-flight.js';
import { Connection, type ConnectOptions, type ServerConnection } from './connection.js';
import { Dispatcher, type DispatcherOptions } from './dispatcher.js';
import type { ClientNotificationObserver } from './client-notifications.js';
import { middlewareEntry, type Middleware, type MiddlewareFor, type AnyMiddleware } from './middleware.js';
import { PromptRegistry } from './primitives/prompts/index.js';
import { ResourceRegistry } from './primitives/resources/index.js';
import { auditStep } from './pipeline/audit.js';
import { AuditGuard } from './pipeline/audit-guard.js';
import { RequestStateCodec } from './inputs/request-state.js';
import { createLogger, type Logger } from '../runtime/logger.js';
import { ToolRegistry } from './registry.js';
import type { ResultStore } from '../state/result-store.js';
import { SubscriptionHub } from './subscriptions.js';
import type { Tool } from './tool.js';
import { TasksPrimitive } from './primitives/tasks/index.js';
import { SkillCatalog, SkillsPrimitive } from './primitives/skills/index.js';
import type { TaskStore } from '../tasks/store.js';
import { auditSinkFor, eventBusFor, requireSharedSecret, sessionRecordsFor, sharedState, taskStoreFor, type SharedState } from '../state/backends.js';
import type { EventBus } from '../state/bus.js';
import type { SessionRecords } from '../state/sessions.js';
import type { CreateLimiter } from '../state/index.js';

/** After stopping the calls that outlived a shutdown's grace, how long their answers may take. */
const STOPPED_CALLS_WAIT_MS = 2_000;

export type { ToolServerOptions, DrainEvent, ServerTasksOptions, LimitOptions } from './server-options.js';
import type { ToolServerOptions, DrainEvent, ServerTasksOptions } from './server-options.js';

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
  /** The skills served (the `skills` option), if any. */
  readonly skills?: SkillCatalog;
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
  /** Set by close(): what is still settling afterwards (a change waiting for Redis) is not reported. */
  private closed = false;
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
    // Checked before anything is opened (an audit file, a connection to shared state).
    const cacheHints = listCacheHints(options.listTtlMs);
    const limits = options.limits ?? {};
    requireSharedSecret(options.state, options.requestStateSecret);
    if (options.skills) this.skills = skillCatalogOf(options.skills);
    this.state = sharedState(options.state, limits.resultStore, this.logger);
    this.results = this.state.results;
    this.createLimiter = this.state.createLimiter;
    this.audit = auditSinkFor(options.audit);
    if (this.audit) this.auditGuard = new AuditGuard(this.audit, options.auditFailure ?? 'refuse', this.logger);
    const onListenerError = (err: unknown) => this.logger.error({ err }, 'an event listener failed');
    this.bus = options.bus ?? eventBusFor(options.state, onListenerError);
    this.sessionRecords = options.sessionRecords ?? sessionRecordsFor(options.state);
    this.subscriptions.useBus(this.bus, (err) => {
      // A change whose sharing was still waiting for Redis when the server closed is moot.
      if (!this.closed) this.logger.warn({ err }, 'a change could not be shared with the other instances');
    });
    const tasks = options.tasks === false ? undefined : (options.tasks ?? {});
    if (tasks) this.taskStore = taskStoreFor(tasks, options.state);
    this.rateLimiter = rateLimiterFor(limits.rateLimit, this.createLimiter);
    this.dispatcher = new Dispatcher(this.dispatcherOptions(options, tasks, cacheHints));
    this.fill(options);
  }

  /** What the protocol engine is built from: the options' limits and defaults, and what the constructor opened. */
  private dispatcherOptions(options: ToolServerOptions, taskOptions: ServerTasksOptions | undefined, cacheHints: CacheHints): DispatcherOptions {
    const limits = options.limits ?? {};
    const { taskStore: store, bus, tools: registry, info: serverInfo, logger } = this;
    const tasks = store ? new TasksPrimitive({ ...taskOptions, store, bus, registry, serverInfo, logger }) : undefined;
    return {
      registry: this.tools,
      logger: this.logger,
      timeoutMs: options.timeoutMs ?? 60_000,
      requestState: new RequestStateCodec(options.requestStateSecret, options.requestStateTtlMs ?? 600_000),
      approval: options.approval ?? 'destructive',
      maxArgumentBytes: limits.maxArgumentBytes ?? 1024 * 1024,
      maxResultBytes: limits.maxResultBytes ?? 1024 * 1024,
      resultStore: this.results,
      concurrency: new ConcurrencyGate(limits.maxInFlight ?? 64, limits.maxQueued ?? 256),
      rateLimiter: this.rateLimiter,
      scopePolicy: new ScopePolicy(options.scopes),
      serverInfo: this.info,
      instructions: options.instructions,
      pageSize: options.pageSize ?? 100,
      cacheHints,
      subscriptions: this.subscriptions,
      calls: this.calls,
      auditCall: this.audit && auditStep(this.audit, this.auditGuard!, this.instanceId),
      tracing: options.tracing === false ? false : options.tracing === true || options.tracing === undefined ? {} : options.tracing,
      auditSink: this.audit,
      auditGuard: this.auditGuard,
      auditInstance: this.instanceId,
      tasks,
      primitives: (context) => [
        ...(tasks ? [tasks] : []),
        ...(this.skills ? [new SkillsPrimitive(this.skills, options.pageSize ?? 100, cacheHints)] : []),
        ...(options.primitives?.(context) ?? []),
      ],
      resources: this.resources,
      prompts: this.prompts,
    };
  }

  /** The tools, resources, prompts and middleware the options name, registered once the engine exists. */
  private fill(options: ToolServerOptions): void {
    if (options.tools?.length) this.tools.add(...options.tools);
    if (options.resources?.length) this.resources.add(...options.resources);
    if (options.resourceTemplates?.length) this.resources.addTemplate(...options.resourceTemplates);
    if (options.prompts?.length) this.prompts.add(...options.prompts);
    if (this.skills) this.resources.add(...this.skills.resources());
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
   * Observes every notification a client sends (`notifications/cancelled`,
   * `notifications/initialized`, `notifications/roots/list_changed`, …), on
   * every transport, before the server acts on it (docs/middleware.md). The
   * one hook for them: middleware sees requests. Returns the undo.
   */
  onClientNotification(observer: ClientNotificationObserver): () => void {
    return this.dispatcher.clientNotifications.add(observer);
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
    this.closed = true;
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

/** The cache hints of list results (`listTtlMs`, default 5 minutes; public). */
function listCacheHints(listTtlMs: number | undefined): CacheHints {
  const ttlMs = listTtlMs ?? 300_000;
  if (!Number.isInteger(ttlMs) || ttlMs < 0) throw new RangeError('listTtlMs must be a non-negative integer');
  return { ttlMs, cacheScope: 'public' };
}

function rateLimiterFor(option: RateLimitOptions | false | undefined, createLimiter: CreateLimiter | undefined): RateLimiter | undefined {
  const options = withRateLimitDefaults(option);
  // A rateLimit option's own createLimiter wins over the shared state's.
  if (!options) return undefined;
  return new RateLimiter(options.createLimiter || !createLimiter ? options : { ...options, createLimiter });
}

/** The catalog a `skills` option names, loaded (and checked) before the server opens anything. */
function skillCatalogOf(skills: NonNullable<ToolServerOptions['skills']>): SkillCatalog {
  if (skills instanceof SkillCatalog) return skills;
  return new SkillCatalog(typeof skills === 'string' ? { folder: skills } : skills);
}
