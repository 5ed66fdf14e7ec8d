import { nodeCrypto } from '../runtime/lazy-crypto.js';
import {
  isExpired,
  ORPHANED_TASK_ERROR,
  TERMINAL_STATUSES,
  type TaskCursor,
  type TaskError,
  type TaskPatch,
  type TaskRecord,
  type TaskStore,
} from './store.js';

/**
 * Tasks kept in this process's memory: the default task store where better-sqlite3 is not
 * installed (issue 33: no native build by default). Tasks do not survive the process (a restart
 * forgets them: a client polling one gets the unknown-task error) and are not shared with other
 * instances; install better-sqlite3 for the durable SQLite store, or give `state.redis`.
 *
 * Records are copied in and out (structuredClone), as a store that serializes them would: a
 * caller changing a record it holds never changes the stored task.
 */
export class MemoryTaskStore implements TaskStore {
  readonly instanceId = nodeCrypto().randomUUID();
  private readonly tasks = new Map<string, TaskRecord>();

  async create(record: TaskRecord): Promise<void> {
    this.tasks.set(record.taskId, structuredClone(record));
  }

  async get(taskId: string, owner: string, now = Date.now()): Promise<TaskRecord | undefined> {
    const record = this.tasks.get(taskId);
    // Another owner's task and an expired one look exactly like one that never existed.
    if (!record || record.owner !== owner || isExpired(record, now)) return undefined;
    return structuredClone(record);
  }

  async update(taskId: string, patch: TaskPatch, now = Date.now()): Promise<TaskRecord | undefined> {
    const current = this.tasks.get(taskId);
    if (!current) return undefined;
    if (TERMINAL_STATUSES.has(current.status)) return structuredClone(current);
    const next: TaskRecord = { ...current, ...structuredClone(patch), lastUpdatedAt: now };
    // Payloads belong to one status each (SEP-2663 DetailedTask).
    if (next.status !== 'input_required') delete next.inputRequests;
    if (next.status !== 'completed') delete next.result;
    if (next.status !== 'failed') delete next.error;
    if (next.statusMessage === undefined) delete next.statusMessage;
    this.tasks.set(taskId, next);
    return structuredClone(next);
  }

  async list(owner: string, options: { after?: TaskCursor; limit: number }, now = Date.now()): Promise<TaskRecord[]> {
    const after = options.after;
    return [...this.tasks.values()]
      .filter((t) => t.owner === owner && !isExpired(t, now))
      .filter((t) => !after || t.createdAt > after.createdAt || (t.createdAt === after.createdAt && t.taskId > after.taskId))
      .sort(byCreation)
      .slice(0, options.limit)
      .map((t) => structuredClone(t));
  }

  async listUnfinished(options: { limit: number }): Promise<TaskRecord[]> {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError('limit must be a positive integer');
    return [...this.tasks.values()]
      .filter((t) => !TERMINAL_STATUSES.has(t.status))
      .sort(byCreation)
      .slice(0, options.limit)
      .map((t) => structuredClone(t));
  }

  async purgeExpired(now = Date.now()): Promise<number> {
    let purged = 0;
    for (const [id, task] of this.tasks) {
      if (!isExpired(task, now)) continue;
      this.tasks.delete(id);
      purged++;
    }
    return purged;
  }

  /** No other instance shares this store, and this one's own tasks are live: nothing is orphaned. */
  async failUnfinished(_error: TaskError, _now?: number): Promise<number> {
    return 0;
  }

  /** Nothing will finish this instance's unfinished tasks now: they read failed, as the SQLite store's do. */
  close(): void {
    const now = Date.now();
    for (const task of this.tasks.values()) {
      if (TERMINAL_STATUSES.has(task.status)) continue;
      task.status = 'failed';
      task.statusMessage = ORPHANED_TASK_ERROR.message;
      task.error = { ...ORPHANED_TASK_ERROR };
      delete task.inputRequests;
      task.lastUpdatedAt = now;
    }
  }
}

function byCreation(a: TaskRecord, b: TaskRecord): number {
  return a.createdAt - b.createdAt || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0);
}
