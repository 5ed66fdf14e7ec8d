import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openSqlite } from '../audit/sqlite-driver.js';
import type { SqliteDatabase, SqliteStatement } from '../audit/sqlite-types.js';
import { isExpired, TERMINAL_STATUSES, type TaskCursor, type TaskError, type TaskPatch, type TaskRecord, type TaskStatus, type TaskStore } from './store.js';

/** The default file, under the working directory (a separate file from the audit trail). */
export const DEFAULT_TASKS_DB = join('.toolwright', 'tasks.db');

const SCHEMA_VERSION = 1;

const CREATE = `
CREATE TABLE IF NOT EXISTS tasks (
  task_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  tool TEXT NOT NULL,
  status TEXT NOT NULL,
  status_message TEXT,
  created_at INTEGER NOT NULL,
  last_updated_at INTEGER NOT NULL,
  ttl_ms INTEGER,
  expires_at INTEGER,
  poll_interval_ms INTEGER NOT NULL,
  input_requests TEXT,
  result TEXT,
  error TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tasks_expires_at ON tasks (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS tasks_owner_created ON tasks (owner, created_at, task_id);
`;

interface Row {
  task_id: string;
  owner: string;
  tool: string;
  status: string;
  status_message: string | null;
  created_at: number;
  last_updated_at: number;
  ttl_ms: number | null;
  poll_interval_ms: number;
  input_requests: string | null;
  result: string | null;
  error: string | null;
}

/**
 * The embedded task store: one SQLite file in WAL mode, written
 * synchronously, so a task is on disk before its handle is sent and a
 * finished task's result survives the process being killed (WAL with
 * synchronous=NORMAL survives a process crash; `synchronous: 'full'` also a
 * power loss). One process owns the file: `failUnfinished` at start marks
 * every unfinished task failed, which is right only when no other live
 * process runs tasks in it (several instances want a shared store).
 */
export class SqliteTaskStore implements TaskStore {
  private readonly db: SqliteDatabase;
  private readonly insert: SqliteStatement;
  private readonly select: SqliteStatement;
  private readonly purge: SqliteStatement;
  private readonly page: SqliteStatement;

  constructor(file: string, options: { synchronous?: 'normal' | 'full' } = {}) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    this.db = openSqlite(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    this.db.pragma('busy_timeout = 5000');
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new Error(`the tasks database was written by a newer toolwright (schema ${version})`);
    this.db.exec(CREATE);
    this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
    this.insert = this.db.prepare(
      `INSERT INTO tasks (task_id, owner, tool, status, status_message, created_at, last_updated_at, ttl_ms, expires_at, poll_interval_ms, input_requests, result, error)
       VALUES (@task_id, @owner, @tool, @status, @status_message, @created_at, @last_updated_at, @ttl_ms, @expires_at, @poll_interval_ms, @input_requests, @result, @error)`,
    );
    this.select = this.db.prepare('SELECT * FROM tasks WHERE task_id = ?');
    this.purge = this.db.prepare('DELETE FROM tasks WHERE expires_at IS NOT NULL AND expires_at <= ?');
    this.page = this.db.prepare(
      `SELECT * FROM tasks WHERE owner = @owner AND (expires_at IS NULL OR expires_at > @now)
         AND (created_at > @created OR (created_at = @created AND task_id > @id))
       ORDER BY created_at, task_id LIMIT @limit`,
    );
  }

  async create(record: TaskRecord): Promise<void> {
    this.insert.run({
      task_id: record.taskId,
      owner: record.owner,
      tool: record.tool,
      status: record.status,
      status_message: record.statusMessage ?? null,
      created_at: record.createdAt,
      last_updated_at: record.lastUpdatedAt,
      ttl_ms: record.ttlMs,
      expires_at: record.ttlMs === null ? null : record.createdAt + record.ttlMs,
      poll_interval_ms: record.pollIntervalMs,
      input_requests: json(record.inputRequests),
      result: json(record.result),
      error: json(record.error),
    });
  }

  async get(taskId: string, owner: string, now = Date.now()): Promise<TaskRecord | undefined> {
    const record = this.read(taskId);
    // Another owner's task and an expired one look exactly like one that never existed.
    if (!record || record.owner !== owner || isExpired(record, now)) return undefined;
    return record;
  }

  async update(taskId: string, patch: TaskPatch, now = Date.now()): Promise<TaskRecord | undefined> {
    return this.db.transaction(() => {
      const current = this.read(taskId);
      if (!current) return undefined;
      if (TERMINAL_STATUSES.has(current.status)) return current;
      const next: TaskRecord = { ...current, ...patch, lastUpdatedAt: now };
      // Payloads belong to one status each (SEP-2663 DetailedTask).
      if (next.status !== 'input_required') delete next.inputRequests;
      if (next.status !== 'completed') delete next.result;
      if (next.status !== 'failed') delete next.error;
      this.db
        .prepare(
          `UPDATE tasks SET status = ?, status_message = ?, last_updated_at = ?, ttl_ms = ?, expires_at = ?, poll_interval_ms = ?,
             input_requests = ?, result = ?, error = ? WHERE task_id = ?`,
        )
        .run(
          next.status,
          next.statusMessage ?? null,
          next.lastUpdatedAt,
          next.ttlMs,
          next.ttlMs === null ? null : next.createdAt + next.ttlMs,
          next.pollIntervalMs,
          json(next.inputRequests),
          json(next.result),
          json(next.error),
          taskId,
        );
      return next;
    })();
  }

  async list(owner: string, options: { after?: TaskCursor; limit: number }, now = Date.now()): Promise<TaskRecord[]> {
    const rows = this.page.all({ owner, now, created: options.after?.createdAt ?? -1, id: options.after?.taskId ?? '', limit: options.limit }) as Row[];
    return rows.map((row) => this.fromRow(row));
  }

  async purgeExpired(now = Date.now()): Promise<number> {
    return this.purge.run(now).changes;
  }

  async failUnfinished(error: TaskError, now = Date.now()): Promise<number> {
    return this.db
      .prepare(
        `UPDATE tasks SET status = 'failed', status_message = ?, error = ?, input_requests = NULL, last_updated_at = ?
         WHERE status IN ('working', 'input_required')`,
      )
      .run(error.message, JSON.stringify(error), now).changes;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private read(taskId: string): TaskRecord | undefined {
    const row = this.select.get(taskId) as Row | undefined;
    return row ? this.fromRow(row) : undefined;
  }

  private fromRow(row: Row): TaskRecord {
    const record: TaskRecord = {
      taskId: row.task_id,
      owner: row.owner,
      tool: row.tool,
      status: row.status as TaskStatus,
      createdAt: row.created_at,
      lastUpdatedAt: row.last_updated_at,
      ttlMs: row.ttl_ms,
      pollIntervalMs: row.poll_interval_ms,
    };
    if (row.status_message !== null) record.statusMessage = row.status_message;
    if (row.input_requests !== null) record.inputRequests = JSON.parse(row.input_requests);
    if (row.result !== null) record.result = JSON.parse(row.result);
    if (row.error !== null) record.error = JSON.parse(row.error);
    return record;
  }
}

function json(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}
