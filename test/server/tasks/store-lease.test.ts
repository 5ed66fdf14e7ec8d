import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../../src/tasks/sqlite-store.js';
import { ORPHANED_TASK_ERROR, type TaskRecord } from '../../../src/tasks/store.js';
import { tempDir } from '../../helpers/temp.js';

const error = ORPHANED_TASK_ERROR;

function task(taskId: string, status: TaskRecord['status'] = 'working'): TaskRecord {
  const now = Date.now();
  return { taskId, owner: '', tool: 'x', status, createdAt: now, lastUpdatedAt: now, ttlMs: 3_600_000, pollIntervalMs: 10 };
}

function twoStores(leaseMs = 30_000) {
  const file = join(tempDir('tw-tasks-lease-'), 'tasks.db');
  const a = new SqliteTaskStore(file, { leaseMs });
  const b = new SqliteTaskStore(file, { leaseMs });
  return { file, a, b, close: () => (a.close(), b.close()) };
}

describe('SqliteTaskStore: instance identity and lease', () => {
  it('each store is its own instance; another instance fails a task only once its lease ran out, never its own', async () => {
    const { a, b, close } = twoStores();
    expect(a.instanceId).not.toBe(b.instanceId);
    await a.create(task('t1'));
    // The other instance opening the store: a live lease is left alone.
    expect(await b.failUnfinished(error)).toBe(0);
    expect((await b.get('t1', ''))?.status).toBe('working');
    // Its own instance never fails it, whatever the clock says.
    expect(await a.failUnfinished(error, Date.now() + 3_600_000)).toBe(0);
    // Past the lease (nobody renewed it): the process is gone.
    expect(await b.failUnfinished(error, Date.now() + 30_001)).toBe(1);
    expect(await a.get('t1', '')).toMatchObject({ status: 'failed', error, statusMessage: error.message });
    close();
  });

  it('the running instance renews its lease; a finished task holds none', async () => {
    const { file, a, close } = twoStores(1_000);
    await a.create(task('t1'));
    await a.create(task('t2', 'completed'));
    const raw = new Database(file, { readonly: true });
    const lease = (id: string) =>
      raw.prepare('SELECT lease_expires_at AS l, instance_id AS i FROM tasks WHERE task_id = ?').get(id) as { l: number | null; i: string };
    const first = lease('t1');
    expect(first.i).toBe(a.instanceId);
    expect(lease('t2').l).toBeNull();
    await expect.poll(() => lease('t1').l, { timeout: 10_000, interval: 50 }).toBeGreaterThan(first.l!);
    raw.close();
    close();
  });

  it('closing a store fails its own unfinished tasks at once and leaves finished ones and other instances alone', async () => {
    const { a, b, close } = twoStores();
    await a.create(task('mine'));
    await a.create(task('done'));
    await a.update('done', { status: 'completed', result: { content: [] } });
    await b.create(task('theirs'));
    a.close();
    expect(await b.get('mine', '')).toMatchObject({ status: 'failed', error });
    expect((await b.get('done', ''))?.status).toBe('completed');
    expect((await b.get('theirs', ''))?.status).toBe('working');
    close();
  });

  it('a schema-1 file (one process per file, no lease) is migrated; its unfinished tasks belong to no live instance', async () => {
    const file = join(tempDir('tw-tasks-lease-'), 'tasks.db');
    const old = new Database(file);
    old.exec(`CREATE TABLE tasks (task_id TEXT PRIMARY KEY, owner TEXT NOT NULL, tool TEXT NOT NULL, status TEXT NOT NULL, status_message TEXT,
      created_at INTEGER NOT NULL, last_updated_at INTEGER NOT NULL, ttl_ms INTEGER, expires_at INTEGER, poll_interval_ms INTEGER NOT NULL,
      input_requests TEXT, result TEXT, error TEXT) WITHOUT ROWID`);
    const now = Date.now();
    old
      .prepare(
        `INSERT INTO tasks (task_id, owner, tool, status, created_at, last_updated_at, ttl_ms, expires_at, poll_interval_ms) VALUES (?, '', 'x', 'working', ?, ?, NULL, NULL, 10)`,
      )
      .run('old', now, now);
    old.pragma('user_version = 1');
    old.close();
    const store = new SqliteTaskStore(file);
    expect((await store.get('old', ''))?.status).toBe('working');
    await store.create(task('new'));
    expect(await store.failUnfinished(error)).toBe(1);
    expect((await store.get('old', ''))?.status).toBe('failed');
    expect((await store.get('new', ''))?.status).toBe('working');
    store.close();
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(2);
    check.close();
  });

  it('a lease shorter than a second is refused with a RangeError naming the setting', () => {
    const file = join(tempDir('tw-tasks-lease-'), 'tasks.db');
    expect(() => new SqliteTaskStore(file, { leaseMs: 10 })).toThrow(/leaseMs must be an integer number of milliseconds from 1000/);
  });
});
