import type { TaskStore } from '../../tasks/store.js';
import type { RunningTask } from './types.js';

const MAX_TASKS = 500;

/**
 * The unfinished tasks in a store, oldest first (at most 500). Undefined when the store cannot
 * list them (its `listUnfinished` is optional): the panel says so instead of showing none.
 */
export async function runningTasks(store: TaskStore, limit = 100): Promise<RunningTask[] | undefined> {
  if (!store.listUnfinished) return undefined;
  const tasks = await store.listUnfinished({ limit: Math.min(Math.max(1, Math.trunc(limit) || 1), MAX_TASKS) });
  return tasks.map((task) => ({
    taskId: task.taskId,
    tool: task.tool,
    status: task.status,
    owner: task.owner,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
  }));
}
