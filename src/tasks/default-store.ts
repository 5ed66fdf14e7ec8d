import { join } from 'node:path';
import { SqliteDriverError, sqliteDriverInstalled } from '../audit/sqlite-driver.js';
import { nodeCrypto } from '../runtime/lazy-crypto.js';
import { MemoryTaskStore } from './memory-store.js';
import { DEFAULT_TASKS_DB, SqliteTaskStore } from './sqlite-store.js';
import { checkLeaseMs, type TaskCursor, type TaskPatch, type TaskRecord, type TaskStore, type TaskError } from './store.js';

/**
 * The default store: SQLite at `.toolwright/tasks.db` under `dir` (default
 * $TOOLWRIGHT_AUDIT_DIR, else the working directory: beside the audit
 * trail, in its own file). Opened on first use, so a server whose tools never
 * become tasks never creates the file. `leaseMs`: how long this process's
 * claim on its unfinished tasks lasts unless renewed (SqliteTaskStore).
 *
 * better-sqlite3 is an optional peer dependency (issue 33). Without it, no file named: tasks are
 * kept in memory (MemoryTaskStore: not across a restart). A file named needs SQLite: a
 * SqliteDriverError naming `npm install better-sqlite3` now, at start-up, not on the first task.
 */
export function createDefaultTaskStore(file?: string, options: { leaseMs?: number } = {}): TaskStore {
  const path = file ?? join(process.env.TOOLWRIGHT_AUDIT_DIR || process.cwd(), DEFAULT_TASKS_DB);
  // Checked now: a bad setting is a start-up error, not one on the first task.
  if (options.leaseMs !== undefined) checkLeaseMs(options.leaseMs);
  if (!sqliteDriverInstalled()) {
    if (file !== undefined) throw SqliteDriverError.notInstalled(undefined, 'the SQLite task store (tasks.store)');
    return new MemoryTaskStore();
  }
  return new LazyTaskStore((instanceId) => new SqliteTaskStore(path, { leaseMs: options.leaseMs, instanceId }));
}

class LazyTaskStore implements TaskStore {
  private store?: TaskStore;
  private id?: string;

  constructor(private readonly open: (instanceId: string) => TaskStore) {}

  /** Made on first use (node:crypto is not loaded at start-up for a server that never runs a task). */
  get instanceId(): string {
    return (this.id ??= nodeCrypto().randomUUID());
  }

  private get inner(): TaskStore {
    return (this.store ??= this.open(this.instanceId));
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
  async listUnfinished(options: { limit: number }): Promise<TaskRecord[]> {
    const inner = this.inner;
    return inner.listUnfinished ? inner.listUnfinished(options) : [];
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
