import { isPlainObject } from '../protocol/content.js';
import { TASKS_EXTENSION } from '../protocol/extensions.js';
import { withDeadline } from './deadline.js';
import { CancelledError, InputRequiredError, InputRoundsExceededError, McpRpcError, ProtocolViolationError, ToolClientError } from './errors.js';
import { readInputRequired } from './inputs/check.js';
import type { InputResponder } from './inputs/responder.js';
import { clip } from './results.js';
import type { RequestOptions } from './session.js';
import type { TaskCallOptions, TaskInfo, TaskStatus } from './task-types.js';

/**
 * The client side of the tasks extension (io.modelcontextprotocol/tasks,
 * SEP-2663): a call the server turns into a task is followed by polling
 * `tasks/get`, its questions are answered through `tasks/update`, and the
 * caller's abort becomes `tasks/cancel`. ToolClient delegates here. Nothing
 * the server sends is trusted: every task is checked before it is used.
 */

export { TASKS_EXTENSION };
export type { TaskCallOptions, TaskInfo, TaskStatus };

/** Declares the extension on one request (SEP-2663: per request, never for the session). */
export const TASKS_EXTENSIONS: Readonly<Record<string, unknown>> = Object.freeze({ [TASKS_EXTENSION]: {} });

const STATUSES: ReadonlySet<string> = new Set<TaskStatus>(['working', 'input_required', 'completed', 'failed', 'cancelled']);
export const TERMINAL: ReadonlySet<string> = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);

/** What following a task needs of the client. */
export interface TaskDeps {
  rpc(method: string, params: Record<string, unknown>, options: RequestOptions): Promise<Record<string, unknown>>;
  inputs(): InputResponder | undefined;
  /** Time each request (and each round of answers) may take. */
  timeoutMs: number;
  maxInputRounds: number;
  warn(message: string): void;
}

/** Bounds on the server's suggested interval: a hostile 0 must not become a busy loop. */
const MIN_POLL_MS = 25;
const MAX_POLL_MS = 60_000;
const DEFAULT_POLL_MS = 1_000;
export const MAX_TASK_ID = 200;

/** The task ended as `failed`: the error the server recorded for it. */
export class TaskFailedError extends McpRpcError {
  constructor(
    readonly taskId: string,
    code: number,
    message: string,
    data?: unknown,
  ) {
    super(code, message, data);
  }
}

/** The task ended as `cancelled` without this client asking (the server or its operator stopped it). */
export class TaskCancelledError extends ToolClientError {
  constructor(
    readonly taskId: string,
    statusMessage?: string,
  ) {
    super(`task ${taskId} was cancelled${statusMessage ? `: ${clip(statusMessage, 500)}` : ''}`);
  }
}

/** The task outlived its TTL before it ended; the server may have deleted it. */
export class TaskExpiredError extends ToolClientError {
  constructor(readonly taskId: string) {
    super(`task ${taskId} outlived its time to live before it ended`);
  }
}

/** Checks a task from the server (a CreateTaskResult, a GetTaskResult or a notifications/tasks). */
function readTask(method: string, value: Record<string, unknown>): TaskInfo {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = value;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID)
    throw new ProtocolViolationError(`${method}: "taskId" must be a non-empty string`);
  if (typeof status !== 'string' || !STATUSES.has(status))
    throw new ProtocolViolationError(`${method}: unknown task status ${JSON.stringify(clip(String(status), 40))}`);
  if (statusMessage !== undefined && typeof statusMessage !== 'string') throw new ProtocolViolationError(`${method}: "statusMessage" must be a string`);
  if (ttlMs !== undefined && ttlMs !== null && !(typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs >= 0))
    throw new ProtocolViolationError(`${method}: "ttlMs" must be a non-negative number or null`);
  if (pollIntervalMs !== undefined && !(typeof pollIntervalMs === 'number' && Number.isFinite(pollIntervalMs) && pollIntervalMs >= 0))
    throw new ProtocolViolationError(`${method}: "pollIntervalMs" must be a non-negative number`);
  const task: TaskInfo = { taskId, status: status as TaskStatus, ttlMs: typeof ttlMs === 'number' ? ttlMs : null };
  if (statusMessage !== undefined) task.statusMessage = clip(statusMessage, 2_000);
  if (typeof createdAt === 'string') task.createdAt = createdAt;
  if (typeof lastUpdatedAt === 'string') task.lastUpdatedAt = lastUpdatedAt;
  if (typeof pollIntervalMs === 'number') task.pollIntervalMs = pollIntervalMs;
  if (status === 'input_required') {
    if (!isPlainObject(value.inputRequests)) throw new ProtocolViolationError(`${method}: an input_required task needs an "inputRequests" object`);
    task.inputRequests = value.inputRequests;
  } else if (status === 'completed') {
    if (!isPlainObject(value.result)) throw new ProtocolViolationError(`${method}: a completed task needs a "result" object`);
    task.result = value.result;
  } else if (status === 'failed') {
    const error = value.error;
    if (!isPlainObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string')
      throw new ProtocolViolationError(`${method}: a failed task needs an "error" with a code and a message`);
    task.error = { code: error.code as number, message: clip(error.message, 1_000), ...(error.data !== undefined ? { data: error.data } : {}) };
  }
  return task;
}

/** `tasks/get`: the task as the server describes it now. */
export async function getTask(deps: TaskDeps, taskId: string, options: { signal?: AbortSignal } = {}): Promise<TaskInfo> {
  checkTaskId(taskId);
  const result = await deps.rpc('tasks/get', { taskId }, { signal: options.signal, timeoutMs: deps.timeoutMs, extensions: TASKS_EXTENSIONS });
  const task = readTask('tasks/get', result);
  if (task.taskId !== taskId) throw new ProtocolViolationError(`tasks/get: the server answered about another task`);
  return task;
}

/** `tasks/cancel`: asks the server to stop the task (cooperative: it may still end otherwise). */
export async function cancelTask(deps: TaskDeps, taskId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
  checkTaskId(taskId);
  await deps.rpc('tasks/cancel', { taskId }, { signal: options.signal, timeoutMs: deps.timeoutMs, extensions: TASKS_EXTENSIONS });
}

/** `tasks/update`: answers to the task's outstanding questions, keyed as the server asked them. */
export async function updateTask(
  deps: TaskDeps,
  taskId: string,
  inputResponses: Record<string, unknown>,
  options: { signal?: AbortSignal } = {},
): Promise<void> {
  checkTaskId(taskId);
  if (!isPlainObject(inputResponses)) throw new TypeError('inputResponses must be a plain object');
  await deps.rpc('tasks/update', { taskId, inputResponses }, { signal: options.signal, timeoutMs: deps.timeoutMs, extensions: TASKS_EXTENSIONS });
}

/**
 * What reports a task's progress to the caller's `onTask`: a copy of the
 * task each time its status or status message changes (never the same twice
 * in a row); a throwing callback is warned about, never fatal to the call.
 */
export function taskReporter(onTask: TaskCallOptions['onTask'], warn: (message: string) => void): (task: TaskInfo) => void {
  let told = '';
  return (t) => {
    const seen = `${t.status}\u0000${t.statusMessage ?? ''}`;
    if (seen === told || !onTask) return;
    told = seen;
    try {
      onTask({ ...t });
    } catch (err) {
      warn(`the onTask callback threw: ${(err as Error).message}`);
    }
  };
}

/**
 * Follows a task from its CreateTaskResult to its end: polls `tasks/get` at
 * the server's interval, answers its questions with `onInputRequest` through
 * `tasks/update` (each key once: SEP-2663 asks clients to deduplicate), and
 * returns the final tools/call result. The caller's abort sends
 * `tasks/cancel` and rejects with CancelledError. A failed task rejects with
 * TaskFailedError, one cancelled elsewhere with TaskCancelledError.
 */
export async function followTask(
  deps: TaskDeps,
  created: Record<string, unknown>,
  toolName: string,
  options: TaskCallOptions & { signal?: AbortSignal },
): Promise<Record<string, unknown>> {
  let task = readTask('tools/call', created);
  const { signal } = options;
  const answered = new Set<string>();
  let rounds = 0;
  const tell = taskReporter(options.onTask, (message) => deps.warn(message));
  const expiresAt = expiryOf(task);
  try {
    for (;;) {
      tell(task);
      if (TERMINAL.has(task.status)) return outcome(task);
      if (task.status === 'input_required') {
        const fresh = await answer(deps, task, toolName, answered, signal);
        if (fresh) {
          if (++rounds > deps.maxInputRounds) throw new InputRoundsExceededError(toolName, deps.maxInputRounds);
        }
      }
      if (expiresAt !== undefined && Date.now() >= expiresAt) throw new TaskExpiredError(task.taskId);
      await sleep(pollDelay(task, options.pollIntervalMs), signal);
      task = await getTask(deps, task.taskId, { signal });
    }
  } catch (err) {
    if (signal?.aborted) {
      // The caller gave up: the server is told to stop the work (never notifications/cancelled: SEP-2663).
      await cancelTask(deps, task.taskId).catch((e: unknown) => deps.warn(`tasks/cancel for ${task.taskId} failed: ${(e as Error).message}`));
      throw err instanceof CancelledError ? err : new CancelledError('tools/call', signal.reason);
    }
    throw err;
  }
}

/** Answers the questions not answered yet; whether there were any. */
async function answer(deps: TaskDeps, task: TaskInfo, toolName: string, answered: Set<string>, signal?: AbortSignal): Promise<boolean> {
  const input = readInputRequired('tasks/get', { inputRequests: task.inputRequests });
  const open = input.requests.filter((r) => !answered.has(r.key));
  // Already answered: the server's status has not caught up yet (tasks/update is eventually consistent).
  if (open.length === 0) return false;
  const responder = deps.inputs();
  if (!responder) throw new InputRequiredError('tools/call', task.inputRequests);
  const budget = { deadline: Date.now() + deps.timeoutMs, timeoutMs: deps.timeoutMs, signal };
  const responses = await withDeadline('tools/call', budget, (s) => responder.answerRound({ requests: open }, toolName, s));
  await updateTask(deps, task.taskId, responses, { signal });
  for (const r of open) answered.add(r.key);
  return true;
}

function outcome(task: TaskInfo): Record<string, unknown> {
  if (task.status === 'completed') {
    const type = task.result!.resultType;
    if (type !== undefined && type !== 'complete')
      throw new ProtocolViolationError(`tasks/get: a completed task's result has resultType ${JSON.stringify(clip(String(type), 40))}`);
    return task.result!;
  }
  if (task.status === 'failed') throw new TaskFailedError(task.taskId, task.error!.code, task.error!.message, task.error!.data);
  throw new TaskCancelledError(task.taskId, task.statusMessage);
}

export function expiryOf(task: TaskInfo): number | undefined {
  if (task.ttlMs === null) return undefined;
  const created = task.createdAt ? Date.parse(task.createdAt) : NaN;
  return (Number.isFinite(created) ? created : Date.now()) + task.ttlMs;
}

export function pollDelay(task: TaskInfo, floor?: number): number {
  const suggested = task.pollIntervalMs ?? DEFAULT_POLL_MS;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, suggested, floor ?? 0));
}

export function checkTaskId(taskId: unknown): asserts taskId is string {
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID) throw new TypeError('taskId must be a non-empty string');
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
