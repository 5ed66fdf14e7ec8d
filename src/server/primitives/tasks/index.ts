import { nodeCrypto } from '../../../runtime/lazy-crypto.js';
import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { isPlainObject } from '../../../protocol/content.js';
import { ORPHANED_TASK_ERROR, TERMINAL_STATUSES, type TaskRecord, type TaskStore } from '../../../tasks/store.js';
import type { BusEvent } from '../../../state/bus.js';
import { callerKeyOf, type Exchange } from '../../exchange.js';
import type { MethodResult, MethodRun, MethodTable, Primitive } from '../method-table.js';
import type { CallInfo, Operation } from '../../pipeline/operation.js';
import type { CallModes } from '../tools/index.js';
import type { ListenFilter } from '../subscriptions/index.js';
import type { TaskHost } from './host.js';
import type { TasksPrimitiveOptions } from './options.js';
import { LEGACY_CAPABILITY, taskSupportOf, withTaskSupport } from './legacy.js';
import { legacyCall, legacyCancel, legacyGet, legacyList, legacyResult } from './legacy-methods.js';
import { modernCall } from './modern-call.js';
import { TaskNotifications } from './notifications.js';
import { resolveTaskMode, type ResolvedTaskMode } from './policy.js';
import { TaskSlots } from './slots.js';
import type { PassOutcome, TaskRun } from './task-run.js';
import { declaresTasks, getTaskResult, missingTasksExtension, taskIdOf, taskNotFound, TaskMethod, TASKS_EXTENSION } from './wire.js';

/** What a restart (or a crash) does to a task that was still running (documented in docs/tasks.md, "Durable"). */
export const RESTART_ERROR = ORPHANED_TASK_ERROR;

/**
 * The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) and the
 * 2025-11-25 form: a run mode of `tools/call` (CallModes, given to the tools
 * primitive), so a task's work is the call's own run through the whole
 * pipeline, its outcome stored in the task's record; and tasks/get,
 * tasks/update and tasks/cancel. tasks/result and tasks/list are served in
 * the legacy era only (-32601 in the modern one, as SEP-2663 requires).
 */
export class TasksPrimitive implements Primitive, TaskHost, CallModes {
  readonly live = new Map<string, TaskRun>();
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number;
  readonly slots: TaskSlots;
  readonly store: TaskStore;
  private opened?: Promise<void>;
  readonly notifications: TaskNotifications;

  constructor(readonly options: TasksPrimitiveOptions) {
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

  /** subscriptions/listen with `notifications.taskIds`: this module's part of the filter. */
  readonly listen: ListenFilter = (inner) => this.notifications.wrapListen(inner);

  /** How a tools/call runs: as a task when it asks for one (or its tool must be one), else directly. */
  call(params: Record<string, unknown>, info: CallInfo, exchange: Exchange, run: MethodRun) {
    return info.era === 'modern' ? modernCall(this, params, info, exchange, run) : legacyCall(this, params, info, exchange, run);
  }

  /** A legacy tools/list page with each tool's task support (the page is cached for both eras: rewritten only when some tool can be a task at all). */
  listed(page: MethodResult): MethodResult {
    if (!this.anyTaskTools()) return page;
    return withTaskSupport(page, (name) => (this.options.registry.has(name) ? taskSupportOf(this.modeOf(name)) : undefined))!;
  }

  register(methods: MethodTable): void {
    // Only a run: the task is looked up by it (`find`, the one not-found answer, after any user middleware).
    // tasks/update and tasks/cancel change a task: audited (the audit rule); tasks/get only reads.
    methods.runs(TaskMethod.get, ['modern'], (op, params) => this.get(op, params));
    methods.runs(TaskMethod.get, ['legacy'], (op, params) => legacyGet(this, op, params));
    methods.runs(TaskMethod.update, ['modern'], (op, params) => this.update(op, params), { tracked: true });
    methods.runs(TaskMethod.cancel, ['modern'], (op, params) => this.cancel(op, params), { tracked: true });
    methods.runs(TaskMethod.cancel, ['legacy'], (op, params) => legacyCancel(this, op, params), { tracked: true });
    // The 2025-11-25 form (legacy.ts); tasks/result and tasks/list do not exist in the modern era (-32601).
    methods.runs('tasks/result', ['legacy'], (op, params) => legacyResult(this, op, params));
    methods.runs('tasks/list', ['legacy'], (op, params) => legacyList(this, op, params));
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
  ready(): Promise<void> {
    return (this.opened ??= this.store.failUnfinished(RESTART_ERROR).then((n) => {
      if (n > 0) this.options.logger.warn({ tasks: n }, 'tasks left running by a server that is gone are marked failed');
    }));
  }

  private async get(op: Operation, params: Record<string, unknown>): Promise<MethodResult> {
    const record = await this.find(op, params);
    const run = this.live.get(record.taskId);
    const shown = run?.progressMessage !== undefined && record.status === 'working' ? { ...record, statusMessage: run.progressMessage } : record;
    return getTaskResult(shown);
  }

  private async update(op: Operation, params: Record<string, unknown>): Promise<MethodResult> {
    const record = await this.find(op, params);
    const responses = params.inputResponses;
    if (!isPlainObject(responses)) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "inputResponses" must be an object');
    const run = this.live.get(record.taskId);
    if (run) await run.answer(responses);
    // Run by another instance sharing the store: it takes the answers (docs/deployment.md).
    else if (!TERMINAL_STATUSES.has(record.status)) this.share({ type: 'task-update', taskId: record.taskId, inputResponses: responses });
    return {};
  }

  private async cancel(op: Operation, params: Record<string, unknown>): Promise<MethodResult> {
    const record = await this.find(op, params);
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
  async cancelElsewhere(record: TaskRecord): Promise<void> {
    const stored = await this.store.update(record.taskId, { status: 'cancelled', statusMessage: 'Cancelled by the client.' });
    if (stored) this.notifications.publish(stored);
    this.share({ type: 'task-cancel', taskId: record.taskId });
  }

  /** The caller's task, or the one error for every task it may not see (SEP-2663 "Auth binding"); a modern request declares the extension. */
  async find(op: Operation, params: Record<string, unknown>): Promise<TaskRecord> {
    if (op.info.era === 'modern' && !declaresTasks(op.info.clientCapabilities)) throw missingTasksExtension();
    const taskId = taskIdOf(params);
    await this.ready();
    const record = await this.store.get(taskId, callerKeyOf(op.exchange));
    if (!record) throw taskNotFound();
    return record;
  }

  forget(run: TaskRun): void {
    clearTimeout(run.expiry);
    run.releaseSlot?.();
    if (run.taskId && this.live.get(run.taskId) === run) this.live.delete(run.taskId);
  }

  newRecord(exchange: Exchange, tool: string, ttlMs: number | null): TaskRecord {
    const now = Date.now();
    const taskId = nodeCrypto().randomUUID();
    return { taskId, owner: callerKeyOf(exchange), tool, status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs, pollIntervalMs: this.pollIntervalMs };
  }

  async adopt(run: TaskRun, record: TaskRecord, releaseSlot: (() => void) | undefined, first: () => Promise<PassOutcome>): Promise<void> {
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
    void first()
      .then((outcome) => run.settle(outcome))
      .catch((err) => this.options.logger.error({ err, taskId: record.taskId }, 'task could not record its outcome'));
    void this.store.purgeExpired().catch(() => undefined);
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

export type { TasksOptions, TasksPrimitiveOptions } from './options.js';
export { resolveTaskMode, checkTaskMode, type TaskMode } from './policy.js';
export { TASKS_EXTENSION } from './wire.js';
