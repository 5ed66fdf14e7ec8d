import type { Link, SpanContext } from '@opentelemetry/api';

/** How many tasks' creating spans are remembered (oldest forgotten first): bounded memory whatever the load. */
const MAX_REMEMBERED = 10_000;

/** The task id of a CreateTaskResult: modern (`resultType: "task"`, flat) or legacy (`{ task: { taskId } }`). */
function createdTaskId(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as { resultType?: unknown; taskId?: unknown; task?: { taskId?: unknown } };
  if (r.resultType === 'task' && typeof r.taskId === 'string') return r.taskId;
  const legacy = r.task?.taskId;
  return typeof legacy === 'string' ? legacy : undefined;
}

const TASK_METHODS = new Set(['tasks/get', 'tasks/result', 'tasks/update', 'tasks/cancel']);

/**
 * Which span created each task, so that the task's later requests
 * (`tasks/get`, `tasks/result`, `tasks/update`, `tasks/cancel`) link to the
 * `tools/call` that started it. Kept in this process's memory: a task read
 * through another instance sharing the store gets no link.
 */
export class TaskLinks {
  private readonly created = new Map<string, SpanContext>();

  /** After a tools/call: remembers the span if its result created a task. */
  remember(method: string, result: unknown, span: SpanContext): void {
    if (method !== 'tools/call') return;
    const taskId = createdTaskId(result);
    if (taskId === undefined) return;
    if (this.created.size >= MAX_REMEMBERED) this.created.delete(this.created.keys().next().value as string);
    this.created.set(taskId, span);
  }

  /** The link a task request's span carries to the call that created the task, if this process saw it. */
  linkFor(method: string, params: Record<string, unknown> | undefined): Link | undefined {
    if (!TASK_METHODS.has(method)) return undefined;
    const taskId = params?.taskId;
    if (typeof taskId !== 'string') return undefined;
    const span = this.created.get(taskId);
    return span ? { context: span, attributes: { 'toolwright.link': 'task_created_by' } } : undefined;
  }
}

export const taskLinks = new TaskLinks();
