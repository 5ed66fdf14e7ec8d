import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../../src/tasks/sqlite-store.js';
import type { TaskRecord } from '../../../src/tasks/store.js';
import { tempDir } from '../../helpers/temp.js';

/**
 * Two servers sharing .toolwright/tasks.db write it at once. A status update reads the task and
 * writes it back; begun as a deferred transaction, its write could find the file changed by the
 * other process since its read and fail at once (SQLITE_BUSY_SNAPSHOT: no busy wait helps), which
 * a call answered as an internal error. Here the other writer is a worker thread on its own
 * connection, writing the same table as fast as it can while this one updates a task.
 */
const OTHER_WRITER = `
const Database = require('better-sqlite3');
const { workerData, parentPort } = require('node:worker_threads');
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const touch = db.prepare('UPDATE tasks SET last_updated_at = ? WHERE task_id = ?');
const until = Date.now() + workerData.ms;
let writes = 0;
parentPort.postMessage('started');
while (Date.now() < until) { touch.run(Date.now(), 'theirs'); writes++; }
db.close();
parentPort.postMessage(writes);
`;

function task(taskId: string): TaskRecord {
  const now = Date.now();
  return { taskId, owner: '', tool: 'x', status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs: 3_600_000, pollIntervalMs: 10 };
}

describe('SqliteTaskStore with another process writing the file', () => {
  it('updates a task while the other writes, every time: a write waits for the other instead of failing', async () => {
    const file = join(tempDir('tw-tasks-writers-'), 'tasks.db');
    const store = new SqliteTaskStore(file);
    try {
      await store.create(task('mine'));
      await store.create(task('theirs'));
      const worker = new Worker(OTHER_WRITER, { eval: true, workerData: { file, ms: 1_500 } });
      const started = new Promise<void>((resolve) => worker.once('message', () => resolve()));
      const done = new Promise<number>((resolve, reject) => {
        worker.on('message', (m) => m !== 'started' && resolve(m as number));
        worker.once('error', reject);
      });
      await started;
      const failures: string[] = [];
      let updates = 0;
      const until = Date.now() + 1_000;
      while (Date.now() < until) {
        try {
          await store.update('mine', { statusMessage: `update ${updates}` });
          updates++;
        } catch (err) {
          failures.push(`${(err as { code?: string }).code}: ${(err as Error).message}`);
        }
      }
      const theirs = await done;
      expect(theirs).toBeGreaterThan(0);
      expect(updates).toBeGreaterThan(0);
      expect(failures.slice(0, 3), `${failures.length} of ${updates + failures.length} updates failed`).toEqual([]);
      expect((await store.get('mine', ''))?.statusMessage).toBe(`update ${updates - 1}`);
    } finally {
      store.close();
    }
  });
});
