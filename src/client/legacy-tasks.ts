import { isPlainObject } from '../protocol/content.js';
import { CancelledError, InputRoundsExceededError, McpRpcError, ProtocolViolationError } from './errors.js';
import { clip } from './results.js';
import {
  cancelTask,
  checkTaskId,
  expiryOf,
  MAX_TASK_ID,
  pollDelay,
  sleep,
  TaskCancelledError,
  TaskExpiredError,
  TaskFailedError,
  taskReporter,
  TERMINAL,
  type TaskCallOptions,
  type TaskDeps,
  type TaskInfo,
  type TaskStatus,
} from './tasks.js';

/**
 * Tasks in their 2025-11-25 form (basic/utilities/tasks.mdx), for a legacy
 * server: the client asks for a task with `params.task` on tools/call (only
 * where the server's `tasks.requests.tools.call` capability and the tool's
 * `execution.taskSupport` allow it), polls `tasks/get`, and fetches the
 * outcome with `tasks/result`. Input the tool asks for arrives as ordinary
 * server requests (elicitation/create, …) on the stream of a `tasks/result`
 * call, which the client makes when the task reads `input_required` (the
 * spec's "SHOULD preemptively call tasks/result"); they are answered by the
 * client's `onInputRequest` like any legacy request. Nothing the server
 * sends is trusted.
 */

const STATUSES: ReadonlySet<string> = new Set<TaskStatus>(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/**
 * `params.task` for a legacy tools/call, or nothing: tasks.mdx "Tool-Level
 * Negotiation" (the server's capability, then the tool's taskSupport:
 * absent or "forbidden" MUST NOT be called as a task).
 */
export function legacyTaskParams(
  capabilities: Record<string, unknown> | undefined,
  tool: Record<string, unknown> | undefined,
): { task: Record<string, never> } | undefined {
  const tasks = capabilities?.tasks;
  const call = isPlainObject(tasks) && isPlainObject(tasks.requests) && isPlainObject(tasks.requests.tools) ? tasks.requests.tools.call : undefined;
  if (!isPlainObject(call)) return undefined;
  const support = isPlainObject(tool?.execution) ? tool.execution.taskSupport : undefined;
  return support === 'optional' || support === 'required' ? { task: {} } : undefined;
}

/** Whether a legacy tools/call was answered with a CreateTaskResult rather than its result. */
export function isCreateTaskResult(result: Record<string, unknown>): boolean {
  return isPlainObject(result.task) && result.content === undefined;
}

/** Checks a 2025-11-25 Task (a CreateTaskResult's `task`, a tasks/get result, a notifications/tasks/status). */
function readLegacyTask(method: string, value: unknown): TaskInfo {
  if (!isPlainObject(value)) throw new ProtocolViolationError(`${method}: the task must be an object`);
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval } = value;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID)
    throw new ProtocolViolationError(`${method}: "taskId" must be a non-empty string`);
  if (typeof status !== 'string' || !STATUSES.has(status))
    throw new ProtocolViolationError(`${method}: unknown task status ${JSON.stringify(clip(String(status), 40))}`);
  if (statusMessage !== undefined && typeof statusMessage !== 'string') throw new ProtocolViolationError(`${method}: "statusMessage" must be a string`);
  if (ttl !== undefined && ttl !== null && !(typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0))
    throw new ProtocolViolationError(`${method}: "ttl" must be a non-negative number or null`);
  if (pollInterval !== undefined && !(typeof pollInterval === 'number' && Number.isFinite(pollInterval) && pollInterval >= 0))
    throw new ProtocolViolationError(`${method}: "pollInterval" must be a non-negative number`);
  const task: TaskInfo = { taskId, status: status as TaskStatus, ttlMs: typeof ttl === 'number' ? ttl : null };
  if (statusMessage !== undefined) task.statusMessage = clip(statusMessage, 2_000);
  if (typeof createdAt === 'string') task.createdAt = createdAt;
  if (typeof lastUpdatedAt === 'string') task.lastUpdatedAt = lastUpdatedAt;
  if (typeof pollInterval === 'number') task.pollIntervalMs = pollInterval;
  return task;
}

async function getLegacyTask(deps: TaskDeps, taskId: string, signal?: AbortSignal): Promise<TaskInfo> {
  checkTaskId(taskId);
  const task = readLegacyTask('tasks/get', await deps.rpc('tasks/get', { taskId }, { signal, timeoutMs: deps.timeoutMs }));
  if (task.taskId !== taskId) throw new ProtocolViolationError('tasks/get: the server answered about another task');
  return task;
}

/**
 * Follows a 2025-11-25 task from its CreateTaskResult to its end and returns
 * what tools/call would have answered. While the task reads
 * `input_required`, a `tasks/result` is kept open to receive the server's
 * requests (answered by `onInputRequest`); polling goes on beside it, and
 * once the task is `working` again that stream is closed and polling
 * resumes (the spec's "Task-Augmented Tool Call With Elicitation" flow).
 * `timeoutMs` bounds each request and each such round. The caller's abort
 * sends `tasks/cancel`.
 */
export async function followLegacyTask(
  deps: TaskDeps,
  created: Record<string, unknown>,
  toolName: string,
  options: TaskCallOptions & { signal?: AbortSignal },
): Promise<Record<string, unknown>> {
  let task = readLegacyTask('tools/call', created.task);
  const { signal } = options;
  const tell = taskReporter(options.onTask, (message) => deps.warn(message));
  const expiresAt = expiryOf(task);
  let rounds = 0;
  try {
    for (;;) {
      tell(task);
      if (task.status === 'cancelled') throw new TaskCancelledError(task.taskId, task.statusMessage);
      if (TERMINAL.has(task.status)) return await taskResult(deps, task.taskId, signal);
      if (task.status === 'input_required') {
        if (++rounds > deps.maxInputRounds) throw new InputRoundsExceededError(toolName, deps.maxInputRounds);
        const round = await inputRound(deps, task, options, tell).catch(async (err: unknown) => {
          // tasks/result of a task cancelled meanwhile is an error: say it was cancelled.
          if (err instanceof TaskFailedError && !signal?.aborted) {
            const now = await getLegacyTask(deps, task.taskId, signal).catch(() => undefined);
            if (now?.status === 'cancelled') throw new TaskCancelledError(now.taskId, now.statusMessage);
          }
          throw err;
        });
        if ('result' in round) return round.result;
        task = round.task;
        continue;
      }
      if (expiresAt !== undefined && Date.now() >= expiresAt) throw new TaskExpiredError(task.taskId);
      await sleep(pollDelay(task, options.pollIntervalMs), signal);
      task = await getLegacyTask(deps, task.taskId, signal);
    }
  } catch (err) {
    if (signal?.aborted) {
      await cancelTask(deps, task.taskId).catch((e: unknown) => deps.warn(`tasks/cancel for ${task.taskId} failed: ${(e as Error).message}`));
      throw err instanceof CancelledError ? err : new CancelledError('tools/call', signal.reason);
    }
    throw err;
  }
}

/**
 * One input_required round: `tasks/result` open (the server delivers its
 * requests there and answers with the outcome once the task ends) while
 * `tasks/get` is polled; whichever tells first wins.
 */
async function inputRound(
  deps: TaskDeps,
  task: TaskInfo,
  options: TaskCallOptions & { signal?: AbortSignal },
  tell: (t: TaskInfo) => void,
): Promise<{ result: Record<string, unknown> } | { task: TaskInfo }> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const fetching = taskResult(deps, task.taskId, signal).then((result) => ({ result }));
  const polling = (async () => {
    for (;;) {
      await sleep(pollDelay(task, options.pollIntervalMs), signal);
      const now = await getLegacyTask(deps, task.taskId, signal);
      // Every answer has reached the server (or the task ended): the round is over.
      if (now.status !== 'input_required') return { task: now };
      tell(now);
    }
  })();
  try {
    return await Promise.race([fetching, polling]);
  } finally {
    stop.abort(new Error('the input round is over'));
    fetching.catch(() => undefined);
    polling.catch(() => undefined);
  }
}

/** `tasks/result`: exactly what tools/call would have answered; its JSON-RPC error becomes TaskFailedError. */
async function taskResult(deps: TaskDeps, taskId: string, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
  try {
    return await deps.rpc('tasks/result', { taskId }, { signal, timeoutMs: deps.timeoutMs });
  } catch (err) {
    if (err instanceof McpRpcError && !(err instanceof TaskFailedError)) throw new TaskFailedError(taskId, err.code, err.message, err.data);
    throw err;
  }
}
