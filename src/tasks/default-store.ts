import { join } from 'node:path';
import { DEFAULT_TASKS_DB, SqliteTaskStore } from './sqlite-store.js';
import type { TaskCursor, TaskPatch, TaskRecord, TaskStore, TaskError } from './store.js';

/**
 * The default store: SQLite at `.toolwright/tasks.db` under `dir` (default
 * $TOOLWRIGHT_AUDIT_DIR, else the working directory: beside the audit
 * trail, in its own file). Opened on first use, so a server whose tools never
 * become tasks never creates the file.
 */
export function createDefaultTaskStore(file?: string): TaskStore {
  const path = file ?? join(process.env.TOOLWRIGHT_AUDIT_DIR || process.cwd(), DEFAULT_TASKS_DB);
  return new LazyTaskStore(() => new SqliteTaskStore(path));
}

class LazyTaskStore implements TaskStore {
  private store?: TaskStore;

  constructor(private readonly open: () => TaskStore) {}

  private get inner(): TaskStore {
    return (this.store ??= this.open());
  }

  create(record: TaskRecord): Promise<void> {
    return this.inner.create(record);
  }
  get(taskId: string, owner: string, now?: number): Promise<TaskRecord | undefined> {
    return this.inner.get(taskId, owner, now);
  }
  update(taskId: string, patch: TaskPatch, now?: number): Promise<TaskRecord | undefined> {
    return this.inner.update(taskId, patch, now);
  }
  list(owner: string, options: { after?: TaskCursor; limit: number }, now?: number): Promise<TaskRecord[]> {
    return this.inner.list(owner, options, now);
  }
  purgeExpired(now?: number): Promise<number> {
    return this.inner.purgeExpired(now);
  }
  failUnfinished(error: TaskError, now?: number): Promise<number> {
    return this.inner.failUnfinished(error, now);
  }
  close(): void {
    this.store?.close();
  }
}
