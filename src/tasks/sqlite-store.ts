import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SqliteDatabase, SqliteStatement } from '../audit/sqlite-types.js';
import { openSqlite } from '../audit/sqlite-driver.js';
import { useWal } from '../audit/sqlite-wal.js';
import { nodeCrypto } from '../runtime/lazy-crypto.js';
import {
  checkLeaseMs,
  DEFAULT_TASK_LEASE_MS,
  isExpired,
  ORPHANED_TASK_ERROR,
  TERMINAL_STATUSES,
  type TaskCursor,
  type TaskError,
  type TaskPatch,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from './store.js';

/** The default file, under the working directory (a separate file from the audit trail). */
export const DEFAULT_TASKS_DB = join('.toolwright', 'tasks.db');

/** 2: tasks carry the instance that runs them and its lease (1 had neither: one process per file). */
const SCHEMA_VERSION = 2;

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
  error TEXT,
  instance_id TEXT,
  lease_expires_at INTEGER
) WITHOUT ROWID;
`;

/** Added in schema 2 (a file of schema 1 gets them, NULL: a task of a process that is gone). */
const ADDED_COLUMNS = ['instance_id TEXT', 'lease_expires_at INTEGER'];

const INDEXES = `
CREATE INDEX IF NOT EXISTS tasks_expires_at ON tasks (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS tasks_owner_created ON tasks (owner, created_at, task_id);
CREATE INDEX IF NOT EXISTS tasks_unfinished ON tasks (instance_id, lease_expires_at) WHERE status IN ('working', 'input_required');
`;

const UNFINISHED = `status IN ('working', 'input_required')`;

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

interface SqliteTaskStoreOptions {
  /** 'full' also survives a power loss (default 'normal': survives a process crash). */
  synchronous?: 'normal' | 'full';
  /** How long this instance's claim on its unfinished tasks lasts unless renewed (default 30 s, at least 1 s). */
  leaseMs?: number;
  /** This process's identity (default: a random UUID). Never reuse one: a new process is a new instance. */
  instanceId?: string;
}

/**
 * The embedded task store: one SQLite file in WAL mode, written
 * synchronously, so a task is on disk before its handle is sent and a
 * finished task's result survives the process being killed (WAL with
 * synchronous=NORMAL survives a process crash; `synchronous: 'full'` also a
 * power loss).
 *
 * Several processes may share the file (two servers started in one
 * directory): each is an instance with its own id, every unfinished task row
 * names the instance running it and a lease expiry that instance renews every
 * third of the lease (an unref'd timer, stopped on close). The same timer
 * fails other instances' unfinished tasks whose lease ran out: a crashed or
 * killed server's tasks read `failed` within about a lease, a live server's
 * never do. Writers wait for each other (busy timeout) instead of failing.
 */
export class SqliteTaskStore implements TaskStore {
  readonly instanceId: string;
  private readonly leaseMs: number;
  private readonly db: SqliteDatabase;
  private readonly insert: SqliteStatement;
  private readonly select: SqliteStatement;
  private readonly purge: SqliteStatement;
  private readonly page: SqliteStatement;
  private readonly unfinished: SqliteStatement;
  private readonly renew: SqliteStatement;
  private readonly failOrphans: SqliteStatement;
  private readonly failOwn: SqliteStatement;
  private readonly leaseTimer: NodeJS.Timeout;

  constructor(file: string, options: SqliteTaskStoreOptions = {}) {
    this.leaseMs = options.leaseMs ?? DEFAULT_TASK_LEASE_MS;
    checkLeaseMs(this.leaseMs);
    this.instanceId = options.instanceId ?? nodeCrypto().randomUUID();
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    this.db = openSqlite(file);
    // First: another process may be holding the file (switching to WAL, migrating, writing).
    this.db.pragma('busy_timeout = 5000');
    useWal(this.db);
    this.db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    try {
      // One migration at a time when two processes open the file at once.
      this.db.transaction(() => this.migrate()).immediate();
    } catch (err) {
      this.db.close();
      throw err;
    }
    this.insert = this.db.prepare(
      `INSERT INTO tasks (task_id, owner, tool, status, status_message, created_at, last_updated_at, ttl_ms, expires_at, poll_interval_ms, input_requests, result, error, instance_id, lease_expires_at)
       VALUES (@task_id, @owner, @tool, @status, @status_message, @created_at, @last_updated_at, @ttl_ms, @expires_at, @poll_interval_ms, @input_requests, @result, @error, @instance_id, @lease_expires_at)`,
    );
    this.select = this.db.prepare('SELECT * FROM tasks WHERE task_id = ?');
    this.purge = this.db.prepare('DELETE FROM tasks WHERE expires_at IS NOT NULL AND expires_at <= ?');
    this.page = this.db.prepare(
      `SELECT * FROM tasks WHERE owner = @owner AND (expires_at IS NULL OR expires_at > @now)
         AND (created_at > @created OR (created_at = @created AND task_id > @id))
       ORDER BY created_at, task_id LIMIT @limit`,
    );
    this.unfinished = this.db.prepare(`SELECT * FROM tasks WHERE ${UNFINISHED} ORDER BY created_at, task_id LIMIT ?`);
    this.renew = this.db.prepare(`UPDATE tasks SET lease_expires_at = @until WHERE instance_id = @me AND ${UNFINISHED}`);
    const fail = `UPDATE tasks SET status = 'failed', status_message = @message, error = @error, input_requests = NULL, last_updated_at = @now WHERE ${UNFINISHED}`;
    // A row without an instance (schema 1) or a lease belongs to a process that is gone.
    this.failOrphans = this.db.prepare(`${fail} AND (instance_id IS NULL OR instance_id != @me) AND (lease_expires_at IS NULL OR lease_expires_at <= @now)`);
    this.failOwn = this.db.prepare(`${fail} AND instance_id = @me`);
    this.leaseTimer = setInterval(() => this.keepLeases(), Math.floor(this.leaseMs / 3));
    this.leaseTimer.unref();
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new Error(`the tasks database was written by a newer toolwright (schema ${version})`);
    this.db.exec(CREATE);
    const columns = new Set((this.db.pragma('table_info(tasks)') as { name: string }[]).map((c) => c.name));
    for (const column of ADDED_COLUMNS) {
      if (!columns.has(column.split(' ')[0])) this.db.exec(`ALTER TABLE tasks ADD COLUMN ${column}`);
    }
    this.db.exec(INDEXES);
    if (version !== SCHEMA_VERSION) this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }

  /** The lease tick: extends this instance's claim, then fails what instances that are gone left unfinished. */
  private keepLeases(): void {
    try {
      const now = Date.now();
      this.db
        .transaction(() => {
          this.renew.run({ me: this.instanceId, until: now + this.leaseMs });
          this.failOrphans.run(this.failParams(ORPHANED_TASK_ERROR, now));
        })
        .immediate();
    } catch {
      // Busy past the timeout or a full disk: the next tick tries again (the lease outlasts two missed ticks).
    }
  }

  private failParams(error: TaskError, now: number) {
    return { message: error.message, error: JSON.stringify(error), now, me: this.instanceId };
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
      instance_id: this.instanceId,
      lease_expires_at: TERMINAL_STATUSES.has(record.status) ? null : Date.now() + this.leaseMs,
    });
  }

  async get(taskId: string, owner: string, now = Date.now()): Promise<TaskRecord | undefined> {
    const record = this.read(taskId);
    // Another owner's task and an expired one look exactly like one that never existed.
    if (!record || record.owner !== owner || isExpired(record, now)) return undefined;
    return record;
  }

  async update(taskId: string, patch: TaskPatch, now = Date.now()): Promise<TaskRecord | undefined> {
    // BEGIN IMMEDIATE: the write lock before the read. A deferred transaction's write failed at
    // once (SQLITE_BUSY_SNAPSHOT, no busy wait) when another process sharing the file had written
    // since the read, and the call became an internal error.
    return this.db
      .transaction(() => {
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
      })
      .immediate();
  }

  async list(owner: string, options: { after?: TaskCursor; limit: number }, now = Date.now()): Promise<TaskRecord[]> {
    const rows = this.page.all({ owner, now, created: options.after?.createdAt ?? -1, id: options.after?.taskId ?? '', limit: options.limit }) as Row[];
    return rows.map((row) => this.fromRow(row));
  }

  async listUnfinished(options: { limit: number }): Promise<TaskRecord[]> {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError('limit must be a positive integer');
    return (this.unfinished.all(options.limit) as Row[]).map((row) => this.fromRow(row));
  }

  async purgeExpired(now = Date.now()): Promise<number> {
    return this.purge.run(now).changes;
  }

  async failUnfinished(error: TaskError, now = Date.now()): Promise<number> {
    return this.failOrphans.run(this.failParams(error, now)).changes;
  }

  close(): void {
    clearInterval(this.leaseTimer);
    if (!this.db.open) return;
    try {
      // Nothing will finish them now: they read failed at once, not a lease later.
      this.failOwn.run(this.failParams(ORPHANED_TASK_ERROR, Date.now()));
    } finally {
      this.db.close();
    }
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
