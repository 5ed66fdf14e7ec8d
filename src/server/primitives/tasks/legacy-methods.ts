import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { encodeNotification } from '../../../jsonrpc/encode.js';
import { TERMINAL_STATUSES, type TaskRecord } from '../../../tasks/store.js';
import { callerKeyOf, type Exchange } from '../../exchange.js';
import type { CallInfo, Operation } from '../../pipeline/operation.js';
import type { MethodResult, MethodRun } from '../method-table.js';
import type { TaskHost } from './host.js';
import {
  alreadyTerminal,
  decodeTaskCursor,
  encodeTaskCursor,
  finalOutcome,
  LEGACY_LIST_PAGE,
  LEGACY_STATUS_NOTIFICATION,
  legacyTask,
  requestedTtl,
  taskSupportError,
} from './legacy.js';
import { TaskRun } from './task-run.js';

/*
 * The tasks of the 2025-11-25 form (legacy.ts has the wire shapes): a
 * tools/call naming `task`, tasks/get, tasks/result (blocking until the task
 * ends), tasks/list and tasks/cancel, each scoped to the caller.
 */

/** tools/call in the 2025-11-25 form: a call that names `task` runs as one, answered at once with the task. */
export async function legacyCall(host: TaskHost, params: Record<string, unknown>, info: CallInfo, exchange: Exchange, run: MethodRun) {
  const name = params.name;
  const mode = typeof name === 'string' && host.options.registry.has(name) ? host.modeOf(name) : undefined;
  const asked = params.task;
  if (asked === undefined) {
    if (mode?.required) throw taskSupportError(name as string, true);
    return run(params, info, exchange);
  }
  const ttl = requestedTtl(asked);
  // An unknown tool: the tools primitive's own error.
  if (!mode) return run(params, info, exchange);
  if (!mode.task) throw taskSupportError(name as string, false);
  // Taken before any await (TaskSlots): concurrent calls cannot overshoot maxActive.
  const releaseSlot = host.slots.take();
  if (!releaseSlot) throw new RpcError(ErrorCode.InternalError, 'Too many tasks are running; try again later');
  await host.ready().catch((err: unknown) => {
    releaseSlot();
    throw err;
  });
  const { task: _asked, ...rest } = params;
  const task = new TaskRun(
    rest,
    info,
    exchange,
    run,
    host.store,
    (result) => ({ ...result }),
    (done) => host.forget(done),
    (record) => {
      host.notifications.publish(record);
      // tasks.mdx "Task Status Notification" (optional): to the session that created it.
      exchange.peer.push?.(encodeNotification(LEGACY_STATUS_NOTIFICATION, legacyTask(record)));
    },
    true,
  );
  const ttlMs = ttl === undefined ? host.ttlMs : host.ttlMs === null ? ttl : Math.min(ttl, host.ttlMs);
  const record = host.newRecord(exchange, name as string, ttlMs);
  // Stored before the work starts and before the answer (a task from its first moment).
  await host.adopt(task, record, releaseSlot, () => task.start());
  return { task: legacyTask(record) };
}

export async function legacyGet(host: TaskHost, op: Operation, params: Record<string, unknown>): Promise<MethodResult> {
  return legacyTask(await host.find(op, params));
}

/**
 * tasks/result: blocks until the task ends (tasks.mdx "Result Retrieval"), then answers as tools/call would have.
 * While it waits, the task's requests to the client (input_required) are delivered on its stream (legacy-input.ts).
 */
export async function legacyResult(host: TaskHost, op: Operation, params: Record<string, unknown>): Promise<MethodResult | undefined> {
  const { exchange } = op;
  let record: TaskRecord | undefined = await host.find(op, params);
  if (!TERMINAL_STATUSES.has(record.status)) {
    const taskId = record.taskId;
    record = await new Promise<TaskRecord | undefined>((resolve) => {
      const stop = { abort: () => finish(undefined) };
      const unwatch = host.notifications.watch(taskId, (r) => TERMINAL_STATUSES.has(r.status) && finish(r));
      const unclose = exchange.onClose?.(() => finish(undefined));
      exchange.peer.inflight.add(op.info.requestId, stop);
      const undeliver = host.live.get(taskId)?.input?.receiveOn(exchange);
      const finish = (r: TaskRecord | undefined) => {
        unwatch();
        unclose?.();
        undeliver?.();
        exchange.peer.inflight.remove(stop);
        resolve(r);
      };
      // It may have ended between the read and the watch.
      void host.store.get(taskId, callerKeyOf(exchange)).then((r) => r && TERMINAL_STATUSES.has(r.status) && finish(r));
    });
    if (!record) return undefined; // the client gave up (cancelled, or its stream closed)
  }
  const outcome = finalOutcome(record);
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}

export async function legacyList(host: TaskHost, op: Operation, params: Record<string, unknown>): Promise<MethodResult> {
  const after = decodeTaskCursor(params.cursor);
  await host.ready();
  const page = await host.store.list(callerKeyOf(op.exchange), { after, limit: LEGACY_LIST_PAGE + 1 });
  const shown = page.slice(0, LEGACY_LIST_PAGE);
  const result: Record<string, unknown> = { tasks: shown.map(legacyTask) };
  if (page.length > LEGACY_LIST_PAGE) result.nextCursor = encodeTaskCursor(shown[shown.length - 1]);
  return result;
}

export async function legacyCancel(host: TaskHost, op: Operation, params: Record<string, unknown>): Promise<MethodResult> {
  const record = await host.find(op, params);
  const refused = alreadyTerminal(record);
  if (refused) throw refused;
  const run = host.live.get(record.taskId);
  // tasks.mdx: the task is cancelled before the answer is sent.
  if (run) await run.cancel();
  else await host.cancelElsewhere(record);
  const now = await host.store.get(record.taskId, callerKeyOf(op.exchange));
  return legacyTask(now ?? record);
}
