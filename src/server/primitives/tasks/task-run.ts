import { isPlainObject } from '../../../protocol/content.js';
import { Method } from '../../../protocol/methods.js';
import { encodeNotification } from '../../../jsonrpc/encode.js';
import { TERMINAL_STATUSES as TERMINAL, type TaskError, type TaskPatch, type TaskRecord, type TaskStore } from '../../../tasks/store.js';
import { Peer } from '../../peer.js';
import { callerOf, type Exchange } from '../../exchange.js';
import type { CallInfo } from '../../pipeline/operation.js';
import type { MethodResult, MethodRun } from '../method-table.js';
import { TaskInputPeer } from './legacy-input.js';

/**
 * One call that may become a task, and then is one: the call run in task
 * mode. Each pass is the call's own run (one Operation through the whole call
 * pipeline: validation, approval, limits, audit, timeouts) whose outcome goes
 * to the task's record instead of the response, on an exchange of its own, so the work outlives
 * the request that started it: nothing the original connection does after
 * the handle is sent reaches it, except through tasks/cancel.
 *
 * Input the handler asks for once the call is a task: the pipeline answers
 * that pass with an input-required result (its MRTR machinery); the task
 * shows its questions on tasks/get, collects the answers from tasks/update,
 * and once every question has one re-runs the call with them and the signed
 * requestState, exactly as a client's MRTR retry would. A legacy
 * (2025-11-25) task asks with real requests instead (TaskInputPeer): the
 * task reads input_required while an answer is awaited.
 */
/** How one pass of the call ended: its result object, the error it threw, or undefined (cancelled). */
export type PassOutcome = { result: MethodResult } | { error: unknown } | undefined;

export class TaskRun {
  /** The task's record once it is one. */
  record?: TaskRecord;
  /** The latest progress, shown as the status message (kept in memory: no write per progress tick). */
  progressMessage?: string;
  /** Stops the task when its TTL ends (cleared once it settles). */
  expiry?: NodeJS.Timeout;
  /** Gives back its maxActive slot (TaskSlots) once it is forgotten; idempotent. */
  releaseSlot?: () => void;
  private readonly peer: Peer;
  private readonly exchange: Exchange;
  private requestState?: string;
  private answers: Record<string, unknown> = {};
  private running = false;
  /** Settles the current store write chain: changes are applied in order. */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly params: Record<string, unknown>,
    private readonly info: CallInfo,
    private readonly original: Exchange,
    private readonly run: MethodRun,
    private readonly store: TaskStore,
    /** The result as the task stores it (the era's shape: a modern result's resultType and server identity). */
    private readonly stored: (result: MethodResult) => Record<string, unknown>,
    private readonly onSettled: (run: TaskRun) => void,
    /** Told of every stored change (status notifications). */
    private readonly onChange: (record: TaskRecord) => void = () => {},
    /** The 2025-11-25 form: input is asked with requests of the creating session, tagged with the task. */
    legacyInput = false,
  ) {
    this.peer = legacyInput
      ? new TaskInputPeer(original.peer, { taskId: () => this.record?.taskId, waiting: (method) => this.waitingForInput(method) })
      : new Peer(original.peer.transport);
    this.exchange = {
      peer: this.peer,
      // A call's progress and log come as objects (notifyObject); anything else reaches the request only until the call is a task.
      notify: (json) => {
        if (!this.record) this.original.notify(json);
      },
      notifyObject: (method, params) => this.notify(method, params),
      headers: original.headers,
      caller: callerOf(original),
      messageBytes: original.messageBytes,
    };
  }

  get taskId(): string | undefined {
    return this.record?.taskId;
  }

  /** Where a legacy task's requests to the client are delivered (undefined for the extension's MRTR rounds). */
  get input(): TaskInputPeer | undefined {
    return this.peer instanceof TaskInputPeer ? this.peer : undefined;
  }

  /** Runs the first pass; its answer is the direct answer while the call is not a task yet. */
  start(): Promise<PassOutcome> {
    return this.runPass(this.params);
  }

  /** Makes it a task: the record is stored before this resolves (the handle may then be sent). */
  async becomeTask(record: TaskRecord): Promise<void> {
    await this.store.create(record);
    this.record = record;
  }

  /** Stops the work (the original request was cancelled or lost before the call became a task). */
  abort(reason: unknown): void {
    this.peer.inflight.abortAll(reason);
  }

  /** tasks/update: answers to outstanding questions; others are ignored (SEP-2663 "Task Update Requests"). */
  async answer(responses: Record<string, unknown>): Promise<void> {
    const record = this.record;
    if (record?.status !== 'input_required' || this.running) return;
    const outstanding = { ...(record.inputRequests ?? {}) };
    let accepted = 0;
    for (const [key, value] of Object.entries(responses)) {
      if (!Object.hasOwn(outstanding, key)) continue;
      this.answers[key] = value;
      delete outstanding[key];
      accepted++;
    }
    if (accepted === 0) return;
    if (Object.keys(outstanding).length > 0) {
      await this.write({ inputRequests: outstanding });
      return;
    }
    const params: Record<string, unknown> = { ...this.params, inputResponses: this.answers };
    if (this.requestState !== undefined) params.requestState = this.requestState;
    this.answers = {};
    this.progressMessage = undefined;
    await this.write({ status: 'working', statusMessage: undefined });
    void this.runPass(params).then((outcome) => this.settle(outcome));
  }

  /** tasks/cancel: the task is cancelled at once and its work stopped (cooperative for the handler). */
  async cancel(): Promise<void> {
    if (!this.record) return;
    await this.write({ status: 'cancelled', statusMessage: 'Cancelled by the client.' });
    this.abort(new Error('the task was cancelled'));
    this.onSettled(this);
  }

  /** The outcome of a pass once the call is a task: a result, another round of questions, an error, or nothing (cancelled). */
  async settle(outcome: PassOutcome): Promise<void> {
    if (!this.record) return;
    if (outcome === undefined) {
      await this.write({ status: 'cancelled', statusMessage: this.record.statusMessage ?? 'The task was stopped.' });
      this.onSettled(this);
      return;
    }
    if ('error' in outcome) {
      const error = rpcErrorOf(outcome.error);
      await this.write({ status: 'failed', statusMessage: error.message, error });
      this.onSettled(this);
      return;
    }
    const { result } = outcome;
    if (result.resultType === 'input_required' && isPlainObject(result.inputRequests)) {
      this.requestState = typeof result.requestState === 'string' ? result.requestState : undefined;
      await this.write({ status: 'input_required', inputRequests: result.inputRequests, statusMessage: 'Waiting for the client to answer inputRequests.' });
      return;
    }
    await this.write({ status: 'completed', result: this.stored(result), statusMessage: undefined });
    this.onSettled(this);
  }

  /** A legacy task's request to the client is awaited (input_required), or every one is answered (working). */
  private waitingForInput(method: string | undefined): void {
    if (!this.record) return;
    const patch: TaskPatch =
      method === undefined
        ? { status: 'working', statusMessage: undefined }
        : { status: 'input_required', statusMessage: `Waiting for the client to answer ${method}; call tasks/result to receive it.` };
    // In the write chain, so it lands in order with the outcome; a terminal task stays terminal (no repeated notification).
    void this.write(patch, true).catch(() => undefined);
  }

  private runPass(params: Record<string, unknown>): Promise<PassOutcome> {
    this.running = true;
    // The original request's facts and id: the first pass's answer may be the direct answer; one pass runs at a time on the task's own peer.
    return Promise.resolve()
      .then(() => this.run(params, this.info, this.exchange))
      .then(
        (result): PassOutcome => (result === undefined ? undefined : { result }),
        (error: unknown): PassOutcome => ({ error }),
      )
      .finally(() => {
        this.running = false;
      });
  }

  /** Before the call is a task its notifications go to the original request; after, progress becomes the status message (and, for a legacy task, goes to the session). */
  private notify(method: string, params: Record<string, unknown>): void {
    if (!this.record) {
      this.original.notify(encodeNotification(method, params));
      return;
    }
    // The 2025-11-25 form sends them, tagged with the task; SEP-2663 sends neither notifications/progress nor notifications/message for tasks.
    if (this.input && (method === Method.progress || method === Method.message)) this.input.notifyClient(encodeNotification(method, params));
    if (method !== Method.progress) return;
    const { progress, total, message } = params;
    this.progressMessage = typeof message === 'string' ? message : `${progress}${typeof total === 'number' ? `/${total}` : ''}`;
  }

  private write(patch: TaskPatch, unlessTerminal = false): Promise<void> {
    const taskId = this.record!.taskId;
    const next = this.writes
      .then(() => (unlessTerminal && TERMINAL.has(this.record!.status) ? undefined : this.store.update(taskId, patch)))
      .then((stored) => {
        if (stored) {
          this.record = stored;
          this.onChange(stored);
        }
      });
    this.writes = next.catch(() => undefined);
    return next;
  }
}

/** What a thrown error becomes as a failed task's `error` (RpcError keeps its code; anything else is -32603). */
function rpcErrorOf(err: unknown): TaskError {
  if (err && typeof err === 'object' && typeof (err as { code?: unknown }).code === 'number' && typeof (err as { message?: unknown }).message === 'string') {
    const { code, message, data } = err as { code: number; message: string; data?: unknown };
    return data === undefined ? { code, message } : { code, message, data };
  }
  return { code: -32603, message: 'Internal error' };
}
