import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { isPlainObject } from '../../../protocol/content.js';
import { TASKS_EXTENSION } from '../../../protocol/extensions.js';
import type { ClientCapabilities } from '../../../protocol/meta.js';
import type { TaskRecord } from '../../../tasks/store.js';

export { TASKS_EXTENSION };

export const TaskMethod = {
  get: 'tasks/get',
  update: 'tasks/update',
  cancel: 'tasks/cancel',
} as const;

/** Whether the request's own capabilities declare the extension (never a session's earlier declaration). */
export function declaresTasks(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as Record<string, unknown> | undefined)?.extensions;
  return isPlainObject(extensions) && isPlainObject(extensions[TASKS_EXTENSION]);
}

/** -32021 naming the extension (SEP-2663 "Capability Negotiation", "Protocol Errors"). */
export function missingTasksExtension(): RpcError {
  return new RpcError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: the ${TASKS_EXTENSION} extension`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/** The one answer for a task that does not exist, expired, or belongs to another caller. */
export function taskNotFound(): RpcError {
  return new RpcError(ErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
}

const MAX_TASK_ID = 200;

/** `params.taskId`, checked. */
export function taskIdOf(params: Record<string, unknown> | undefined): string {
  const taskId = params?.taskId;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID) {
    throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "taskId" must be a non-empty string');
  }
  return taskId;
}

/** The Task members every shape shares (SEP-2663 "Tasks"). */
function taskMembers(record: TaskRecord): Record<string, unknown> {
  const members: Record<string, unknown> = { taskId: record.taskId, status: record.status };
  if (record.statusMessage !== undefined) members.statusMessage = record.statusMessage;
  members.createdAt = new Date(record.createdAt).toISOString();
  members.lastUpdatedAt = new Date(record.lastUpdatedAt).toISOString();
  members.ttlMs = record.ttlMs;
  members.pollIntervalMs = record.pollIntervalMs;
  return members;
}

/** The CreateTaskResult (`resultType: "task"`, a flat Result & Task: no result, error or inputRequests); the edge adds the server's identity. */
export function createTaskResult(record: TaskRecord): Record<string, unknown> {
  return { resultType: 'task', ...taskMembers(record) };
}

/** The DetailedTask of the status, as `tasks/get` answers it (`resultType: "complete"`). */
export function detailedTask(record: TaskRecord): Record<string, unknown> {
  const task = taskMembers(record);
  if (record.status === 'input_required') task.inputRequests = record.inputRequests ?? {};
  else if (record.status === 'completed') task.result = record.result ?? {};
  else if (record.status === 'failed') task.error = record.error ?? { code: ErrorCode.InternalError, message: 'Internal error' };
  return task;
}

/** tasks/get's answer; the edge adds the server's identity. */
export function getTaskResult(record: TaskRecord): Record<string, unknown> {
  return { resultType: 'complete', ...detailedTask(record) };
}
