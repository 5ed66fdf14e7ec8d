import { isPlainObject } from '../../../protocol/content.js';
import { Peer } from '../../peer.js';
import type { Exchange } from '../../exchange.js';
import { RELATED_TASK } from './legacy.js';

/** What a task's input channel asks of its TaskRun. */
export interface TaskInputHost {
  /** The task's id once the call is a task (legacy calls are tasks from the start). */
  taskId(): string | undefined;
  /** The task waits for the client's answer to `method` (input_required), or no longer waits (undefined: working). */
  waiting(method: string | undefined): void;
}

interface Queued {
  json: string;
  /** False once nothing waits for the answer (it was answered elsewhere, or the call stopped). */
  live(): boolean;
}

/**
 * The peer a legacy (2025-11-25) task's work runs on: `ctx.elicit`,
 * `ctx.sample` and `ctx.listRoots` inside the task become requests of the
 * session that created the task (its answers come back through that
 * session's peer, which routes responses by id) and, as tasks.mdx "Input
 * Required Status" and "Associating Task-Related Messages" require:
 * - each request carries `_meta` `io.modelcontextprotocol/related-task`
 *   with the task's id;
 * - while any answer is awaited the task is `input_required`, and it goes
 *   back to `working` once every one has come.
 *
 * Where the request travels. The call that started the task was answered
 * with its CreateTaskResult, so its stream is gone. On a single-channel
 * session (stdio, in-memory) the request is written on that channel at
 * once. Over Streamable HTTP it is delivered on the stream of a
 * `tasks/result` request the same session makes for this task (the
 * requestor "SHOULD preemptively call tasks/result" on input_required;
 * the spec's "Task-Augmented Tool Call With Elicitation" flow), at once if
 * one is open, else as soon as one opens. Each request is delivered once.
 */
export class TaskInputPeer extends Peer {
  private readonly queue: Queued[] = [];
  private readonly receivers: Array<(json: string) => void> = [];
  private awaited = 0;

  constructor(
    private readonly session: Peer,
    private readonly host: TaskInputHost,
  ) {
    super(session.transport);
  }

  /** CallInputs' legacy path: `write` (the call's own channel) is replaced by the task's delivery. */
  override request(_write: (json: string) => void, method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const taskId = this.host.taskId();
    const base = isPlainObject(params) ? params : {};
    const meta = isPlainObject(base._meta) ? base._meta : {};
    const tagged = taskId === undefined ? base : { ...base, _meta: { ...meta, [RELATED_TASK]: { taskId } } };
    let settled = false;
    if (this.awaited++ === 0) this.host.waiting(method);
    const asked = this.session.request((json) => this.deliver({ json, live: () => !settled && !signal.aborted }), method, tagged, signal);
    return asked.finally(() => {
      settled = true;
      if (--this.awaited === 0) this.host.waiting(undefined);
    });
  }

  /**
   * A `tasks/result` of this task from `exchange` takes delivery of its
   * requests while it waits: queued ones now, later ones as they are asked.
   * Only from the session that created the task (the answers are routed by
   * that session's peer). Returns the detach.
   */
  receiveOn(exchange: Exchange): () => void {
    if (exchange.peer !== this.session) return () => {};
    const write = (json: string) => exchange.notify(json);
    this.receivers.push(write);
    for (const queued of this.queue.splice(0)) if (queued.live()) write(queued.json);
    return () => {
      const at = this.receivers.indexOf(write);
      if (at >= 0) this.receivers.splice(at, 1);
    };
  }

  /**
   * A progress or log notification of the task's work (tasks.mdx "Task
   * Progress Notifications": the call's progressToken stays valid while the
   * task lives), tagged with the task: on a tasks/result stream of the
   * session if one is open, else on the session's own channel (stdio, or the
   * HTTP GET stream while one is open); never queued, it is only news.
   */
  notifyClient(json: string): void {
    const taskId = this.host.taskId();
    const note = JSON.parse(json) as { params?: unknown };
    const params = isPlainObject(note.params) ? note.params : {};
    const meta = isPlainObject(params._meta) ? params._meta : {};
    const tagged = taskId === undefined ? json : JSON.stringify({ ...note, params: { ...params, _meta: { ...meta, [RELATED_TASK]: { taskId } } } });
    const receiver = this.receivers.at(-1);
    if (receiver) receiver(tagged);
    else this.session.push?.(tagged);
  }

  private deliver(queued: Queued): void {
    const receiver = this.receivers.at(-1);
    if (receiver) return void receiver(queued.json);
    // One channel, nothing to choose: written at once (push is that channel on stdio and in-memory pairs).
    if (!this.session.requestChannels && this.session.push) return void this.session.push(queued.json);
    this.queue.push(queued);
  }
}
