import { nodeCrypto } from '../../../runtime/lazy-crypto.js';
import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../../../jsonrpc/types.js';
import { isPlainObject } from '../../../protocol/content.js';
import { Method } from '../../../protocol/methods.js';
import { shapeResult, type ResultEncoder } from '../../../protocol/result.js';
import type { Implementation } from '../../../protocol/meta.js';
import { ORPHANED_TASK_ERROR, type TaskRecord, type TaskStore } from '../../../tasks/store.js';
import type { Logger } from '../../../runtime/logger.js';
import { callerKeyOf, type Exchange } from '../../exchange.js';
import type { ToolRegistry } from '../../registry.js';
import type { MethodHandler, MethodResult, MethodTable, Primitive, RequestFacts } from '../method-table.js';
import { resolveTaskMode, type ResolvedTaskMode, type TaskMode } from './policy.js';
import { encodeNotification } from '../../../jsonrpc/encode.js';
import { TERMINAL_STATUSES } from '../../../tasks/store.js';
import {
  alreadyTerminal,
  decodeTaskCursor,
  encodeTaskCursor,
  finalOutcome,
  LEGACY_CAPABILITY,
  LEGACY_LIST_PAGE,
  LEGACY_STATUS_NOTIFICATION,
  legacyTask,
  requestedTtl,
  taskSupportError,
  taskSupportOf,
  withTaskSupport,
} from './legacy.js';
import { TaskNotifications } from './notifications.js';
import { TaskRun, type PassOutcome } from './task-run.js';
import { TaskSlots } from './slots.js';
import type { BusEvent, EventBus } from '../../../state/bus.js';
import { createTaskResult, declaresTasks, getTaskResult, missingTasksExtension, taskIdOf, taskNotFound, TaskMethod, TASKS_EXTENSION } from './wire.js';

export interface TasksOptions {
  /** Where tasks are kept (default: SQLite at `.toolwright/tasks.db`). */
  store: TaskStore;
  /** How long a task and its result are kept, from creation (default 1 hour); null: until deleted. */
  ttlMs?: number | null;
  /** The polling interval suggested to clients (default 1,000 ms). */
  pollIntervalMs?: number;
  /** Mode for tools that set none (default 'never'). */
  defaultMode?: TaskMode;
  /** The operator's mode per tool name; wins over the tool's own `task`. */
  tools?: Readonly<Record<string, TaskMode>>;
  /** Tasks running or waiting for input at once; beyond it calls are answered directly (default 1,000). */
  maxActive?: number;
}

export interface TasksPrimitiveOptions extends TasksOptions {
  /** Where status changes, cancellations and answers travel between instances sharing the store. */
  bus?: EventBus;
  registry: ToolRegistry;
  results: ResultEncoder;
  serverInfo: Implementation;
  logger: Logger;
}

/** What a restart (or a crash) does to a task that was still running (documented in docs/tasks.md, "Durable"). */
export const RESTART_ERROR = ORPHANED_TASK_ERROR;

/**
 * The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) for
 * `tools/call` in the modern era: it wraps the tools primitive's handler, so
 * a task's work is an ordinary call through the whole pipeline, and answers
 * tasks/get, tasks/update and tasks/cancel. tasks/result and tasks/list are
 * not served in this era (-32601, as SEP-2663 requires).
 */
export class TasksPrimitive implements Primitive {
  private readonly live = new Map<string, TaskRun>();
  private readonly ttlMs: number | null;
  private readonly pollIntervalMs: number;
  private readonly slots: TaskSlots;
  private readonly store: TaskStore;
  private opened?: Promise<void>;
  private readonly notifications: TaskNotifications;

  constructor(private readonly options: TasksPrimitiveOptions) {
    this.store = options.store;
    this.ttlMs = options.ttlMs === undefined ? 3_600_000 : options.ttlMs;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.slots = new TaskSlots(options.maxActive ?? 1_000);
    this.notifications = new TaskNotifications(this.store, () => this.ready());
    const bus = options.bus;
    if (bus) {
      this.notifications.share = (record) => this.share({ type: 'task-status', record: { ...record } });
      this.stopBus = bus.subscribe((event) => this.onBusEvent(event));
    }
  }

  private stopBus?: () => void;
  /** Events this instance published: the bus hands them back, and they were already handled here. */
  private readonly own = new WeakSet<BusEvent>();

  private share(event: BusEvent): void {
    if (!this.options.bus) return;
    this.own.add(event);
    this.options.bus.publish(event).catch((err) => this.options.logger.warn({ err }, 'a task event could not be sent to the other instances'));
  }

  /** What another instance asks of the tasks this one runs, and status changes of tasks it runs. */
  private onBusEvent(event: BusEvent): void {
    if (this.own.has(event)) return;
    if (event.type === 'task-status') {
      this.notifications.deliver(event.record as unknown as TaskRecord);
      return;
    }
    if (event.type !== 'task-cancel' && event.type !== 'task-update') return;
    const run = typeof event.taskId === 'string' ? this.live.get(event.taskId) : undefined;
    if (!run) return; // not ours (or already over)
    if (event.type === 'task-update' && !isPlainObject(event.inputResponses)) return;
    const done = event.type === 'task-cancel' ? run.cancel() : run.answer(event.inputResponses);
    done.catch((err) => this.options.logger.error({ err, taskId: event.taskId }, 'a task request from another instance failed'));
  }

  advertise(capabilities: Record<string, unknown>, era: string): void {
    if (era === 'modern') capabilities.extensions = { [TASKS_EXTENSION]: {} };
    else capabilities.tasks = LEGACY_CAPABILITY;
  }

  register(methods: MethodTable): void {
    methods.wrap(Method.toolsCall, 'modern', (inner) => this.wrapCall(inner));
    methods.wrap(Method.subscriptionsListen, 'modern', (inner) => this.notifications.wrapListen(inner));
    // tasks/update and tasks/cancel change a task: audited (the audit rule); tasks/get only reads.
    methods.add(TaskMethod.get, {
      modern: (request, exchange, facts) => this.get(request, exchange, facts),
      legacy: (request, exchange) => this.legacyGet(request, exchange),
    });
    methods.add(TaskMethod.update, { tracked: true, modern: (request, exchange, facts) => this.update(request, exchange, facts) });
    methods.add(TaskMethod.cancel, {
      tracked: true,
      modern: (request, exchange, facts) => this.cancel(request, exchange, facts),
      legacy: (request, exchange) => this.legacyCancel(request, exchange),
    });
    // The 2025-11-25 form (legacy.ts); tasks/result and tasks/list do not exist in the modern era (-32601).
    methods.wrap(Method.toolsCall, 'legacy', (inner) => this.wrapLegacyCall(inner));
    methods.wrap(Method.toolsList, 'legacy', (inner) => async (request, exchange, facts) => {
      const page = await inner(request, exchange, facts);
      // The page is cached for both eras: rewritten only when some tool can be a task at all.
      if (!this.anyTaskTools()) return page;
      return withTaskSupport(page, (name) => (this.options.registry.has(name) ? taskSupportOf(this.modeOf(name)) : undefined));
    });
    methods.add('tasks/result', { legacy: (request, exchange) => this.legacyResult(request, exchange) });
    methods.add('tasks/list', { legacy: (request, exchange) => this.legacyList(request, exchange) });
  }

  private wrapLegacyCall(inner: MethodHandler): MethodHandler {
    return async (request, exchange, facts) => {
      const name = request.params?.name;
      const mode = typeof name === 'string' && this.options.registry.has(name) ? this.modeOf(name) : undefined;
      const asked = request.params?.task;
      if (asked === undefined) {
        if (mode?.required) throw taskSupportError(name as string, true);
        return inner(request, exchange, facts);
      }
      const ttl = requestedTtl(asked);
      // An unknown tool: the tools primitive's own error.
      if (!mode) return inner(request, exchange, facts);
      if (!mode.task) throw taskSupportError(name as string, false);
      // Taken before any await (TaskSlots): concurrent calls cannot overshoot maxActive.
      const releaseSlot = this.slots.take();
      if (!releaseSlot) throw new RpcError(ErrorCode.InternalError, 'Too many tasks are running; try again later');
      try {
        await this.ready();
      } catch (err) {
        releaseSlot();
        throw err;
      }
      const { task: _asked, ...params } = request.params ?? {};
      const call: JsonRpcRequest = { ...request, params };
      const run = new TaskRun(
        call,
        exchange,
        facts,
        inner,
        this.store,
        (result) => ({ ...result }),
        (done) => this.forget(done),
        (record) => {
          this.notifications.publish(record);
          // tasks.mdx "Task Status Notification" (optional): to the session that created it.
          exchange.peer.push?.(encodeNotification(LEGACY_STATUS_NOTIFICATION, legacyTask(record)));
        },
        true,
      );
      const now = Date.now();
      const ttlMs = ttl === undefined ? this.ttlMs : this.ttlMs === null ? ttl : Math.min(ttl, this.ttlMs);
      const record: TaskRecord = {
        taskId: nodeCrypto().randomUUID(),
        owner: callerKeyOf(exchange),
        tool: name as string,
        status: 'working',
        createdAt: now,
        lastUpdatedAt: now,
        ttlMs,
        pollIntervalMs: this.pollIntervalMs,
      };
      // Stored before the work starts and before the answer (a task from its first moment).
      try {
        await run.becomeTask(record);
      } catch (err) {
        releaseSlot();
        throw err;
      }
      run.releaseSlot = releaseSlot;
      this.live.set(record.taskId, run);
      this.expireLater(run, record);
      void run
        .start()
        .then((outcome) => run.settle(outcome))
        .catch((err) => this.options.logger.error({ err, taskId: record.taskId }, 'task could not record its outcome'));
      void this.store.purgeExpired().catch(() => undefined);
      return { task: legacyTask(record) };
    };
  }

  private async legacyGet(request: JsonRpcRequest, exchange: Exchange): Promise<MethodResult> {
    const record = await this.findOwn(request, exchange);
    return legacyTask(record);
  }

  /**
   * tasks/result: blocks until the task ends (tasks.mdx "Result Retrieval"), then answers as tools/call would have.
   * While it waits, the task's requests to the client (input_required) are delivered on its stream (legacy-input.ts).
   */
  private async legacyResult(request: JsonRpcRequest, exchange: Exchange): Promise<MethodResult | undefined> {
    let record: TaskRecord | undefined = await this.findOwn(request, exchange);
    if (!TERMINAL_STATUSES.has(record.status)) {
      const taskId = record.taskId;
      record = await new Promise<TaskRecord | undefined>((resolve) => {
        const stop = { abort: () => finish(undefined) };
        const unwatch = this.notifications.watch(taskId, (r) => TERMINAL_STATUSES.has(r.status) && finish(r));
        const unclose = exchange.onClose?.(() => finish(undefined));
        exchange.peer.inflight.add(request.id, stop);
        const undeliver = this.live.get(taskId)?.input?.receiveOn(exchange);
        const finish = (r: TaskRecord | undefined) => {
          unwatch();
          unclose?.();
          undeliver?.();
          exchange.peer.inflight.remove(stop);
          resolve(r);
        };
        // It may have ended between the read and the watch.
        void this.store.get(taskId, callerKeyOf(exchange)).then((r) => r && TERMINAL_STATUSES.has(r.status) && finish(r));
      });
      if (!record) return undefined; // the client gave up (cancelled, or its stream closed)
    }
    const outcome = finalOutcome(record);
    if ('error' in outcome) throw outcome.error;
    return outcome.result;
  }

  private async legacyList(request: JsonRpcRequest, exchange: Exchange): Promise<MethodResult> {
    const after = decodeTaskCursor(request.params?.cursor);
    await this.ready();
    const page = await this.store.list(callerKeyOf(exchange), { after, limit: LEGACY_LIST_PAGE + 1 });
    const shown = page.slice(0, LEGACY_LIST_PAGE);
    const result: Record<string, unknown> = { tasks: shown.map(legacyTask) };
    if (page.length > LEGACY_LIST_PAGE) result.nextCursor = encodeTaskCursor(shown[shown.length - 1]);
    return result;
  }

  private async legacyCancel(request: JsonRpcRequest, exchange: Exchange): Promise<MethodResult> {
    const record = await this.findOwn(request, exchange);
    const refused = alreadyTerminal(record);
    if (refused) throw refused;
    const run = this.live.get(record.taskId);
    // tasks.mdx: the task is cancelled before the answer is sent.
    if (run) await run.cancel();
    else await this.cancelElsewhere(record);
    const now = await this.store.get(record.taskId, callerKeyOf(exchange));
    return legacyTask(now ?? record);
  }

  /** The caller's task in the legacy era (no extension to declare), or the one not-found error. */
  private async findOwn(request: JsonRpcRequest, exchange: Exchange): Promise<TaskRecord> {
    const taskId = taskIdOf(request.params);
    await this.ready();
    const record = await this.store.get(taskId, callerKeyOf(exchange));
    if (!record) throw taskNotFound();
    return record;
  }

  private taskTools?: { version: number; any: boolean };

  /** Whether any registered tool may become a task (recomputed when the registry changes). */
  private anyTaskTools(): boolean {
    const { registry } = this.options;
    if (this.taskTools?.version !== registry.version) {
      this.taskTools = { version: registry.version, any: registry.names().some((name) => this.modeOf(name).task) };
    }
    return this.taskTools.any;
  }

  /** The mode of `toolName`: the operator's setting, else the tool's, else the operator's default. */
  modeOf(toolName: string): ResolvedTaskMode {
    const own = this.options.registry.get(toolName)?.tool.task;
    const operator = Object.hasOwn(this.options.tools ?? {}, toolName) ? this.options.tools![toolName] : undefined;
    return resolveTaskMode(operator ?? own ?? this.options.defaultMode);
  }

  /** The store is opened on first use: once, failing what servers that are gone (their lease ran out) left running. */
  private ready(): Promise<void> {
    return (this.opened ??= this.store.failUnfinished(RESTART_ERROR).then((n) => {
      if (n > 0) this.options.logger.warn({ tasks: n }, 'tasks left running by a server that is gone are marked failed');
    }));
  }

  private wrapCall(inner: MethodHandler): MethodHandler {
    return (request, exchange, facts) => {
      const name = request.params?.name;
      const mode = typeof name === 'string' && this.options.registry.has(name) ? this.modeOf(name) : undefined;
      if (!mode?.task) return inner(request, exchange, facts);
      if (!declaresTasks(facts.clientCapabilities)) {
        if (mode.required) throw missingTasksExtension();
        return inner(request, exchange, facts);
      }
      // Overloaded: the call is answered directly rather than parked (a bound on what tasks hold).
      if (this.slots.full) return inner(request, exchange, facts);
      return this.callAsTask(request, exchange, facts, inner, mode, name as string);
    };
  }

  private async callAsTask(
    request: JsonRpcRequest,
    exchange: Exchange,
    facts: RequestFacts,
    inner: MethodHandler,
    mode: ResolvedTaskMode,
    tool: string,
  ): Promise<MethodResult | undefined> {
    // A task at once: its slot is taken before any await (TaskSlots); { afterMs }: when it would become one.
    let releaseSlot = mode.afterMs === 0 ? this.slots.take() : undefined;
    if (mode.afterMs === 0 && !releaseSlot) return inner(request, exchange, facts);
    try {
      await this.ready();
    } catch (err) {
      releaseSlot?.();
      throw err;
    }
    const { serverInfo } = this.options;
    const run = new TaskRun(
      request,
      exchange,
      facts,
      inner,
      this.store,
      (result) => shapeResult('modern', result, serverInfo),
      (done) => this.forget(done),
      (record) => this.notifications.publish(record),
    );
    const first = run.start();
    if (mode.afterMs > 0) {
      // Until it becomes a task, the call belongs to its request: cancelling or losing it stops the work.
      const stop = { abort: (reason?: unknown) => run.abort(reason) };
      exchange.peer.inflight.add(request.id, stop);
      const unsubscribe = exchange.onClose?.((reason) => run.abort(reason));
      let timer: NodeJS.Timeout | undefined;
      const elapsed = new Promise<'elapsed'>((resolve) => (timer = setTimeout(() => resolve('elapsed'), mode.afterMs)));
      const winner = await Promise.race([first.then((outcome) => ({ outcome })), elapsed]);
      clearTimeout(timer);
      // Answered in time (a result, an error, or a round of MRTR questions): no task.
      let direct = winner === 'elapsed' ? undefined : winner;
      // Every slot taken when it would become a task: it stays an ordinary call (still stopped with its request).
      if (!direct && !(releaseSlot = this.slots.take())) direct = { outcome: await first };
      exchange.peer.inflight.remove(stop);
      unsubscribe?.();
      if (direct) return directAnswer(direct.outcome);
    }
    const now = Date.now();
    const record: TaskRecord = {
      taskId: nodeCrypto().randomUUID(),
      owner: callerKeyOf(exchange),
      tool,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
    };
    try {
      await run.becomeTask(record);
    } catch (err) {
      releaseSlot?.();
      run.abort(err);
      throw err;
    }
    run.releaseSlot = releaseSlot;
    this.live.set(record.taskId, run);
    this.expireLater(run, record);
    void first
      .then((outcome) => run.settle(outcome))
      .catch((err) => this.options.logger.error({ err, taskId: record.taskId }, 'task could not record its outcome'));
    void this.store.purgeExpired().catch(() => undefined);
    return createTaskResult(record);
  }

  private async get(request: JsonRpcRequest, exchange: Exchange, facts: RequestFacts): Promise<MethodResult> {
    const record = await this.find(request, exchange, facts);
    const run = this.live.get(record.taskId);
    const shown = run?.progressMessage !== undefined && record.status === 'working' ? { ...record, statusMessage: run.progressMessage } : record;
    return getTaskResult(shown);
  }

  private async update(request: JsonRpcRequest, exchange: Exchange, facts: RequestFacts): Promise<MethodResult> {
    const record = await this.find(request, exchange, facts);
    const responses = request.params?.inputResponses;
    if (!isPlainObject(responses)) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "inputResponses" must be an object');
    const run = this.live.get(record.taskId);
    if (run) await run.answer(responses);
    // Run by another instance sharing the store: it takes the answers (docs/deployment.md).
    else if (!TERMINAL_STATUSES.has(record.status)) this.share({ type: 'task-update', taskId: record.taskId, inputResponses: responses });
    return {};
  }

  private async cancel(request: JsonRpcRequest, exchange: Exchange, facts: RequestFacts): Promise<MethodResult> {
    const record = await this.find(request, exchange, facts);
    // A terminal task: the same empty acknowledgement (idempotent).
    const run = this.live.get(record.taskId);
    if (run) await run.cancel();
    else if (!TERMINAL_STATUSES.has(record.status)) await this.cancelElsewhere(record);
    return {};
  }

  /**
   * A task this instance does not run: cancelled in the store now (so the answer and every later
   * read say so, whichever instance serves them), and the instance that runs it is told to stop
   * its work. With no such instance (it died), the store's word is all there is.
   */
  private async cancelElsewhere(record: TaskRecord): Promise<void> {
    const stored = await this.store.update(record.taskId, { status: 'cancelled', statusMessage: 'Cancelled by the client.' });
    if (stored) this.notifications.publish(stored);
    this.share({ type: 'task-cancel', taskId: record.taskId });
  }

  /** The caller's task, or the one error for every task it may not see (SEP-2663 "Auth binding"). */
  private async find(request: JsonRpcRequest, exchange: Exchange, facts: RequestFacts): Promise<TaskRecord> {
    if (!declaresTasks(facts.clientCapabilities)) throw missingTasksExtension();
    const taskId = taskIdOf(request.params);
    await this.ready();
    const record = await this.store.get(taskId, callerKeyOf(exchange));
    if (!record) throw taskNotFound();
    return record;
  }

  private forget(run: TaskRun): void {
    clearTimeout(run.expiry);
    run.releaseSlot?.();
    if (run.taskId && this.live.get(run.taskId) === run) this.live.delete(run.taskId);
  }

  /** A task that outlives its TTL is stopped and forgotten (its row is purged later). */
  private expireLater(run: TaskRun, record: TaskRecord): void {
    if (record.ttlMs === null) return;
    run.expiry = setTimeout(() => {
      if (this.live.get(record.taskId) !== run) return;
      run.abort(new Error('the task outlived its time to live'));
      this.live.delete(record.taskId);
      run.releaseSlot?.();
    }, record.ttlMs);
    run.expiry.unref();
  }

  close(): void {
    // Tasks keep running through a drain like any call; the store is closed by the server.
    this.stopBus?.();
  }
}

/** A call answered before it became a task: its result, the error it threw, or nothing (cancelled). */
function directAnswer(outcome: PassOutcome): MethodResult | undefined {
  if (outcome !== undefined && 'error' in outcome) throw outcome.error;
  return outcome?.result;
}

export { resolveTaskMode, checkTaskMode, type TaskMode } from './policy.js';
export { TASKS_EXTENSION } from './wire.js';
