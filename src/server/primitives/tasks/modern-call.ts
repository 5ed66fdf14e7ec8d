import { shapeResult } from '../../../protocol/result.js';
import type { Exchange } from '../../exchange.js';
import type { CallInfo } from '../../pipeline/operation.js';
import type { MethodResult, MethodRun } from '../method-table.js';
import type { TaskHost } from './host.js';
import type { ResolvedTaskMode } from './policy.js';
import { TaskRun, type PassOutcome } from './task-run.js';
import { createTaskResult, declaresTasks, missingTasksExtension } from './wire.js';

/**
 * tools/call in the modern era (SEP-2663): a call to a tool that may be a
 * task, from a client that declares the extension, runs as one (at once, or
 * once it outlives its `afterMs`); any other call runs directly.
 */
export function modernCall(host: TaskHost, params: Record<string, unknown>, info: CallInfo, exchange: Exchange, run: MethodRun) {
  const name = params.name;
  const mode = typeof name === 'string' && host.options.registry.has(name) ? host.modeOf(name) : undefined;
  if (!mode?.task) return run(params, info, exchange);
  if (!declaresTasks(info.clientCapabilities)) {
    if (mode.required) throw missingTasksExtension();
    return run(params, info, exchange);
  }
  // Overloaded: the call is answered directly rather than parked (a bound on what tasks hold).
  if (host.slots.full) return run(params, info, exchange);
  return callAsTask(host, params, info, exchange, run, mode, name as string);
}

async function callAsTask(
  host: TaskHost,
  params: Record<string, unknown>,
  info: CallInfo,
  exchange: Exchange,
  run: MethodRun,
  mode: ResolvedTaskMode,
  tool: string,
): Promise<MethodResult | undefined> {
  // A task at once: its slot is taken before any await (TaskSlots); { afterMs }: when it would become one.
  let releaseSlot = mode.afterMs === 0 ? host.slots.take() : undefined;
  if (mode.afterMs === 0 && !releaseSlot) return run(params, info, exchange);
  await host.ready().catch((err: unknown) => {
    releaseSlot?.();
    throw err;
  });
  const { serverInfo } = host.options;
  const task = new TaskRun(
    params,
    info,
    exchange,
    run,
    host.store,
    (result) => shapeResult('modern', result, serverInfo),
    (done) => host.forget(done),
    (record) => host.notifications.publish(record),
  );
  const first = task.start();
  if (mode.afterMs > 0) {
    // Until it becomes a task, the call belongs to its request: cancelling or losing it stops the work.
    const stop = { abort: (reason?: unknown) => task.abort(reason) };
    exchange.peer.inflight.add(info.requestId, stop);
    const unsubscribe = exchange.onClose?.((reason) => task.abort(reason));
    let timer: NodeJS.Timeout | undefined;
    const elapsed = new Promise<'elapsed'>((resolve) => (timer = setTimeout(() => resolve('elapsed'), mode.afterMs)));
    const winner = await Promise.race([first.then((outcome) => ({ outcome })), elapsed]);
    clearTimeout(timer);
    // Answered in time (a result, an error, or a round of MRTR questions): no task.
    let direct = winner === 'elapsed' ? undefined : winner;
    // Every slot taken when it would become a task: it stays an ordinary call (still stopped with its request).
    if (!direct && !(releaseSlot = host.slots.take())) direct = { outcome: await first };
    exchange.peer.inflight.remove(stop);
    unsubscribe?.();
    if (direct) return directAnswer(direct.outcome);
  }
  const record = host.newRecord(exchange, tool, host.ttlMs);
  await host.adopt(task, record, releaseSlot, () => first);
  return createTaskResult(record);
}

/** A call answered before it became a task: its result, the error it threw, or nothing (cancelled). */
function directAnswer(outcome: PassOutcome): MethodResult | undefined {
  if (outcome !== undefined && 'error' in outcome) throw outcome.error;
  return outcome?.result;
}
