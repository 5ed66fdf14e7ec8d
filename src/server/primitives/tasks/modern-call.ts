import type { JsonRpcRequest } from '../../../jsonrpc/types.js';
import { shapeResult } from '../../../protocol/result.js';
import type { Exchange } from '../../exchange.js';
import type { MethodHandler, MethodResult, RequestFacts } from '../method-table.js';
import type { TaskHost } from './host.js';
import type { ResolvedTaskMode } from './policy.js';
import { TaskRun, type PassOutcome } from './task-run.js';
import { createTaskResult, declaresTasks, missingTasksExtension } from './wire.js';

/**
 * tools/call in the modern era (SEP-2663): a call to a tool that may be a
 * task, from a client that declares the extension, runs as one (at once, or
 * once it outlives its `afterMs`); any other call goes straight on.
 */
export function wrapCall(host: TaskHost, inner: MethodHandler): MethodHandler {
  return (request, exchange, facts) => {
    const name = request.params?.name;
    const mode = typeof name === 'string' && host.options.registry.has(name) ? host.modeOf(name) : undefined;
    if (!mode?.task) return inner(request, exchange, facts);
    if (!declaresTasks(facts.clientCapabilities)) {
      if (mode.required) throw missingTasksExtension();
      return inner(request, exchange, facts);
    }
    // Overloaded: the call is answered directly rather than parked (a bound on what tasks hold).
    if (host.slots.full) return inner(request, exchange, facts);
    return callAsTask(host, request, exchange, facts, inner, mode, name as string);
  };
}

async function callAsTask(
  host: TaskHost,
  request: JsonRpcRequest,
  exchange: Exchange,
  facts: RequestFacts,
  inner: MethodHandler,
  mode: ResolvedTaskMode,
  tool: string,
): Promise<MethodResult | undefined> {
  // A task at once: its slot is taken before any await (TaskSlots); { afterMs }: when it would become one.
  let releaseSlot = mode.afterMs === 0 ? host.slots.take() : undefined;
  if (mode.afterMs === 0 && !releaseSlot) return inner(request, exchange, facts);
  try {
    await host.ready();
  } catch (err) {
    releaseSlot?.();
    throw err;
  }
  const { serverInfo } = host.options;
  const run = new TaskRun(
    request,
    exchange,
    facts,
    inner,
    host.store,
    (result) => shapeResult('modern', result, serverInfo),
    (done) => host.forget(done),
    (record) => host.notifications.publish(record),
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
    if (!direct && !(releaseSlot = host.slots.take())) direct = { outcome: await first };
    exchange.peer.inflight.remove(stop);
    unsubscribe?.();
    if (direct) return directAnswer(direct.outcome);
  }
  const record = host.newRecord(exchange, tool, host.ttlMs);
  try {
    await run.becomeTask(record);
  } catch (err) {
    releaseSlot?.();
    run.abort(err);
    throw err;
  }
  host.adopt(run, record, releaseSlot, first);
  return createTaskResult(record);
}

/** A call answered before it became a task: its result, the error it threw, or nothing (cancelled). */
function directAnswer(outcome: PassOutcome): MethodResult | undefined {
  if (outcome !== undefined && 'error' in outcome) throw outcome.error;
  return outcome?.result;
}
