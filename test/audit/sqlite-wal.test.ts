import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/audit/sqlite-driver.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { SqliteAuthProxyStore } from '../../src/auth-proxy/sqlite-store.js';
import { SqliteTaskStore } from '../../src/tasks/sqlite-store.js';
import { tempDir } from '../helpers/temp.js';

/**
 * Two processes opening one new database file together: while one holds the write lock of the
 * file (still in rollback mode, before its switch to WAL is done), the other's switch to WAL is
 * answered SQLITE_BUSY at once, whatever the busy timeout (CI saw one of two servers sharing a new
 * tasks.db fail its first call so). Here the other process is a worker thread on its own
 * connection, holding the write lock for a while; each store must open the file once it lets go.
 */
const LOCK_HOLDER = `
const Database = require('better-sqlite3');
const { workerData, parentPort } = require('node:worker_threads');
const db = new Database(workerData.file);
db.exec('CREATE TABLE IF NOT EXISTS other (x)');
db.exec('BEGIN IMMEDIATE');
db.exec('INSERT INTO other VALUES (1)');
parentPort.postMessage('locked');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.ms);
db.exec('COMMIT');
db.close();
parentPort.postMessage('released');
`;

const HOLD_MS = 300;

/** A rollback-mode file whose write lock another connection holds for HOLD_MS from now; resolves when it is held. */
async function lockedFile(): Promise<{ file: string; released: Promise<void> }> {
  const file = join(tempDir('tw-wal-'), 'shared.db');
  const worker = new Worker(LOCK_HOLDER, { eval: true, workerData: { file, ms: HOLD_MS } });
  const locked = new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  const released = new Promise<void>((resolve, reject) => {
    worker.on('message', (m) => m === 'released' && resolve());
    worker.once('error', reject);
  });
  await locked;
  return { file, released };
}

function journalMode(file: string): string {
  const db = openSqlite(file);
  try {
    return db.pragma('journal_mode', { simple: true }) as string;
  } finally {
    db.close();
  }
}

describe('opening a database file another connection is writing', () => {
  it.each([
    ['the task store', (file: string) => new SqliteTaskStore(file).close()],
    [
      'the audit trail',
      (file: string) => {
        const sink = new SqliteAuditSink(file, { retention: false });
        sink.probe();
        sink.close();
      },
    ],
    ['the auth facade store', (file: string) => new SqliteAuthProxyStore(file).close()],
  ])('%s waits for the other to let go, then switches the file to WAL', async (_name, open) => {
    const { file, released } = await lockedFile();
    open(file);
    await released;
    expect(journalMode(file)).toBe('wal');
  });
});
