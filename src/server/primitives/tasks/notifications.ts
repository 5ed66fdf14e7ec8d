import { encodeNotification } from '../../../jsonrpc/encode.js';
import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { isPlainObject } from '../../../protocol/content.js';
import { META } from '../../../protocol/meta.js';
import type { TaskRecord, TaskStore } from '../../../tasks/store.js';
import { callerKeyOf, type Exchange } from '../../exchange.js';
import { ALSO_ACKNOWLEDGED } from '../../subscriptions.js';
import type { MethodResult, RunOnly } from '../method-table.js';
import { Operation } from '../../pipeline/operation.js';
import { declaresTasks, detailedTask, missingTasksExtension } from './wire.js';

/** The extension's status notification (SEP-2663 "Task Status Notifications"). */
export const TASK_STATUS_NOTIFICATION = 'notifications/tasks';

/** Task ids one stream may watch: state a client holds on the server is bounded. */
export const MAX_WATCHED_TASKS = 100;

type Watcher = (record: TaskRecord) => void;

/**
 * `notifications/tasks` on `subscriptions/listen` streams (SEP-2663): a
 * stream names `notifications.taskIds`; the acknowledgment lists the ids the
 * server agreed to (only the caller's own, existing tasks: another caller's
 * task is silently left out, as one that never existed), the current state of
 * each follows at once, then one notification per stored status change, each
 * a full DetailedTask as tasks/get would answer it. A client that did not
 * declare the extension on the request gets -32021.
 */
export class TaskNotifications {
  private readonly watchers = new Map<string, Set<Watcher>>();

  constructor(
    private readonly store: TaskStore,
    private readonly ready: () => Promise<void>,
  ) {}

  /** Hands each change on to the other instances (set when the server has a bus). */
  share?: (record: TaskRecord) => void;

  /** Called after every stored change of a task. */
  publish(record: TaskRecord): void {
    this.deliver(record);
    this.share?.(record);
  }

  /** Tells this instance's watchers of a change (made here, or by another instance). */
  deliver(record: TaskRecord): void {
    const watching = this.watchers.get(record.taskId);
    if (!watching) return;
    for (const watcher of watching) watcher(record);
  }

  /** Wraps the subscriptions primitive's modern `subscriptions/listen`: task ids are this module's part of the filter. */
  wrapListen(inner: RunOnly): RunOnly {
    return (op, params) => {
      const filter = params.notifications;
      if (!isPlainObject(filter) || filter.taskIds === undefined) return inner(op, params);
      return this.listen(op, params, inner, filter);
    };
  }

  private async listen(op: Operation, params: Record<string, unknown>, inner: RunOnly, filter: Record<string, unknown>): Promise<MethodResult | undefined> {
    const { exchange, info } = op;
    if (!declaresTasks(info.clientCapabilities)) throw missingTasksExtension();
    const wanted = taskIdsOf(filter.taskIds);
    await this.ready();
    const owner = callerKeyOf(exchange);
    const found = await Promise.all(wanted.map((id) => this.store.get(id, owner)));
    const accepted = found.filter((r): r is TaskRecord => r !== undefined).map((r) => r.taskId);
    const tag = { [META.subscriptionId]: info.requestId };
    const send = (record: TaskRecord) => exchange.notify(encodeNotification(TASK_STATUS_NOTIFICATION, { _meta: tag, ...detailedTask(record) }));
    let acknowledged = false;
    const unwatch: Array<() => void> = [];
    const notify = (json: string) => {
      if (acknowledged) return exchange.notify(json);
      // The subscriptions primitive acknowledges first, the ids agreed to among what it acknowledges (ALSO_ACKNOWLEDGED).
      acknowledged = true;
      exchange.notify(json);
      for (const id of accepted) unwatch.push(this.watch(id, send));
      // The state now, so a change between the client's last poll and this stream is not missed.
      void Promise.all(accepted.map((id) => this.store.get(id, owner))).then(
        (records) => {
          for (const r of records) if (r) send(r);
        },
        () => undefined,
      );
    };
    const { taskIds: _own, ...rest } = filter;
    const forwarded = { ...params, notifications: rest, [ALSO_ACKNOWLEDGED]: { taskIds: accepted } };
    // The same request on the same exchange (its methods and facts), with the stream's notifications passing through here.
    const streamExchange = Object.assign(Object.create(exchange) as Exchange, { notify });
    try {
      return await inner(new Operation(forwarded, info, streamExchange), forwarded);
    } finally {
      for (const stop of unwatch) stop();
    }
  }

  /** Calls `watcher` with each stored change of the task until the returned stop is called. */
  watch(taskId: string, watcher: Watcher): () => void {
    let set = this.watchers.get(taskId);
    if (!set) this.watchers.set(taskId, (set = new Set()));
    set.add(watcher);
    return () => {
      set.delete(watcher);
      if (set.size === 0 && this.watchers.get(taskId) === set) this.watchers.delete(taskId);
    };
  }
}

function taskIdsOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.length > MAX_WATCHED_TASKS || !value.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 200)) {
    throw new RpcError(ErrorCode.InvalidParams, `Invalid params: "notifications.taskIds" must be a list of at most ${MAX_WATCHED_TASKS} task ids`);
  }
  return [...new Set(value as string[])];
}
