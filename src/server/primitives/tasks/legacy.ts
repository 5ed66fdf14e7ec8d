import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { isPlainObject } from '../../../protocol/content.js';
import { META } from '../../../protocol/meta.js';
import { TERMINAL_STATUSES, type TaskCursor, type TaskRecord } from '../../../tasks/store.js';
import type { MethodResult } from '../method-table.js';
import type { ResolvedTaskMode } from './policy.js';

/**
 * The 2025-11-25 form of tasks (basic/utilities/tasks.mdx), served to legacy
 * sessions from the same store and the same TaskRun as the extension: the
 * client asks for a task with `params.task` on tools/call, polls `tasks/get`,
 * fetches the outcome with `tasks/result` (which blocks until the task ends),
 * lists its tasks with `tasks/list` and cancels with `tasks/cancel`. This
 * file holds the wire shapes; TasksPrimitive wires the methods.
 */

export const RELATED_TASK = 'io.modelcontextprotocol/related-task';
export const LEGACY_STATUS_NOTIFICATION = 'notifications/tasks/status';
export const LEGACY_LIST_PAGE = 50;

/** What a legacy server advertises (tasks.mdx "Server Capabilities"). */
export const LEGACY_CAPABILITY = Object.freeze({ list: {}, cancel: {}, requests: { tools: { call: {} } } });

/** tasks.mdx "Task Status": for tool calls, a result with isError is `failed`. */
function legacyStatus(record: TaskRecord): string {
  return record.status === 'completed' && record.result?.isError === true ? 'failed' : record.status;
}

/** The Task object of the 2025-11-25 schema (`ttl`, `pollInterval`; no payloads). */
export function legacyTask(record: TaskRecord): Record<string, unknown> {
  const task: Record<string, unknown> = { taskId: record.taskId, status: legacyStatus(record) };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  else if (record.status === 'failed' && record.error) task.statusMessage = record.error.message;
  task.createdAt = new Date(record.createdAt).toISOString();
  task.lastUpdatedAt = new Date(record.lastUpdatedAt).toISOString();
  task.ttl = record.ttlMs;
  task.pollInterval = record.pollIntervalMs;
  return task;
}

/** `execution.taskSupport` of a tool in the legacy tools/list (tasks.mdx "Tool-Level Negotiation"). */
export function taskSupportOf(mode: ResolvedTaskMode): 'required' | 'optional' | undefined {
  if (!mode.task) return undefined;
  return mode.required ? 'required' : 'optional';
}

/** The requested `params.task`: its `ttl`, if any, checked. */
export function requestedTtl(task: unknown): number | undefined {
  if (!isPlainObject(task)) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "task" must be an object');
  const { ttl } = task;
  if (ttl === undefined || ttl === null) return undefined;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1)
    throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "task.ttl" must be a positive integer number of milliseconds');
  return ttl;
}

/**
 * -32601 for a call whose task augmentation the tool does not allow, or demands (tasks.mdx "Tool-Level Negotiation").
 * With HTTP 200, not the 404 of an unknown method: tools/call exists, and a 404 to a request with a session id
 * tells a Streamable HTTP client its session is gone (it MUST start a new one), so the client never saw this reason.
 */
export function taskSupportError(tool: string, required: boolean): RpcError {
  return new RpcError(
    ErrorCode.MethodNotFound,
    required
      ? `Tool ${tool} must be called as a task (execution.taskSupport is "required")`
      : `Tool ${tool} cannot be called as a task (execution.taskSupport is "forbidden")`,
    undefined,
    200,
  );
}

/** tasks.mdx "Task Cancellation": a terminal task cannot be cancelled. */
export function alreadyTerminal(record: TaskRecord): RpcError | undefined {
  if (!TERMINAL_STATUSES.has(record.status)) return undefined;
  return new RpcError(ErrorCode.InvalidParams, `Cannot cancel task: already in terminal status '${legacyStatus(record)}'`);
}

/**
 * What `tasks/result` answers for a terminal task: exactly what tools/call
 * would have answered (its result with the related-task `_meta`, or its
 * JSON-RPC error); a cancelled task has neither, so it is an error saying so.
 */
export function finalOutcome(record: TaskRecord): { result: Record<string, unknown> } | { error: RpcError } {
  if (record.status === 'completed') {
    const result = { ...(record.result ?? {}) };
    delete result.resultType; // a modern-era field, when the task was created by a modern request
    const meta = isPlainObject(result._meta) ? { ...result._meta } : {};
    delete meta[META.serverInfo];
    result._meta = { ...meta, [RELATED_TASK]: { taskId: record.taskId } };
    return { result };
  }
  if (record.status === 'failed' && record.error) return { error: new RpcError(record.error.code, record.error.message, record.error.data) };
  return { error: new RpcError(ErrorCode.InternalError, record.status === 'cancelled' ? 'The task was cancelled; it has no result' : 'The task failed') };
}

/** Opaque to clients; checked here, since a client may send anything. */
export function encodeTaskCursor(last: TaskRecord): string {
  return Buffer.from(JSON.stringify([last.createdAt, last.taskId])).toString('base64url');
}

export function decodeTaskCursor(cursor: unknown): TaskCursor | undefined {
  if (cursor === undefined) return undefined;
  const invalid = new RpcError(ErrorCode.InvalidParams, 'Invalid params: unknown "cursor"');
  if (typeof cursor !== 'string' || cursor.length > 400) throw invalid;
  try {
    const [createdAt, taskId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt !== 'number' || !Number.isSafeInteger(createdAt) || typeof taskId !== 'string' || taskId.length > 200) throw invalid;
    return { createdAt, taskId };
  } catch {
    throw invalid;
  }
}

/**
 * The legacy tools/list page with each task-capable tool's `execution.taskSupport` (the cached page is
 * shared by both eras, and frozen: a changed page is a copy, serialized at the edge).
 */
export function withTaskSupport(page: MethodResult | undefined, supportOf: (name: string) => 'required' | 'optional' | undefined): MethodResult | undefined {
  const tools = page?.tools;
  if (!page || !Array.isArray(tools)) return page;
  let changed = false;
  const shown = tools.map((tool: Record<string, unknown>) => {
    const support = typeof tool.name === 'string' ? supportOf(tool.name) : undefined;
    if (!support) return tool;
    changed = true;
    return { ...tool, execution: { ...(isPlainObject(tool.execution) ? tool.execution : {}), taskSupport: support } };
  });
  return changed ? { ...page, tools: shown } : page;
}
