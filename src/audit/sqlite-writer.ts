// The SQLite audit trail's writer thread (a worker_threads Worker started by SqliteAuditSink):
// it owns the database connection, commits the batches of rows the sink posts, in order, and
// acknowledges each commit; it also runs the retention pruner. The server's thread only copies
// each batch's values into a message, so the commit (~20k instructions and a write(2) per batch)
// no longer runs between two calls. See SqliteAuditSink for the protocol.
import { workerData, type MessagePort } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { BackgroundPruner } from './background-pruner.js';
import type { PruneResult, ResolvedRetention } from './retention.js';
import { COLUMN_COUNT, insertStatement, openDatabase } from './sqlite-schema.js';
import { ACKNOWLEDGED, CLOSED, type WriterInit, type WriterReply, type WriterRequest } from './sqlite-writer-protocol.js';

/** Rows bound to one INSERT at most (see SqliteAuditSink: one multi-row INSERT beats one per row). */
const ROWS_PER_INSERT = 16;

const init = workerData as WriterInit;
const port: MessagePort = init.port;
const state = new Int32Array(init.state);
const db = openDatabase(init.file, init.nativeBinding === undefined ? undefined : { nativeBinding: init.nativeBinding });
// Several servers (or `toolwright audit`) may share the file: wait for a writer instead of failing.
db.pragma(`busy_timeout = ${init.busyTimeoutMs}`);
// The sink made the file WAL (a setting kept in the file) before starting this thread.
db.pragma(`synchronous = ${init.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);

/** `inserts[n - 1]` inserts n rows; each is prepared when a batch of that size first comes. */
const inserts: BetterSqlite3.Statement[] = [];
const insertRows = (rows: number) => (inserts[rows - 1] ??= db.prepare(insertStatement(rows)));
const insertInChunks = db.transaction((values: unknown[]) => {
  const chunk = ROWS_PER_INSERT * COLUMN_COUNT;
  for (let at = 0; at < values.length; at += chunk) {
    const part = values.slice(at, at + chunk);
    insertRows(part.length / COLUMN_COUNT).run(...part);
  }
});

/** Batches received, not yet committed (their values, flat), and how many were committed. */
let queued: unknown[][] = [];
let committed = 0;
let scheduled = false;

/**
 * Commits every batch received so far, atomically, and acknowledges them with one number (the
 * count of batches committed since the start). Batches that arrived in the same turn (the server
 * outpaced the commits) share one commit: fewer commits and fewer acknowledgements, and each
 * batch is still acknowledged only once its rows are committed.
 */
function commitQueued(): void {
  scheduled = false;
  const batches = queued;
  if (!batches.length) return;
  queued = [];
  const values = batches.length === 1 ? batches[0] : batches.flat();
  const rows = values.length / COLUMN_COUNT;
  try {
    if (rows <= ROWS_PER_INSERT) insertRows(rows).run(...values);
    else insertInChunks(values);
    committed += batches.length;
  } catch (err) {
    committed += batches.length;
    // Posted before the count moves: the sink reads pending messages before it settles batches.
    post({ failedUpTo: committed, message: messageOf(err) });
  }
  // The acknowledgement is a number in shared memory and a notify: far cheaper for the server's
  // thread to take than a message (~4k against ~30k instructions a batch, measured).
  Atomics.store(state, ACKNOWLEDGED, committed);
  Atomics.notify(state, ACKNOWLEDGED);
}


const pruner = init.retention ? new BackgroundPruner(db, init.retention as ResolvedRetention, (err) => post({ retentionError: messageOf(err) }), Date.now, false) : undefined;
pruner?.start();
const passes = new Set<Promise<unknown>>();

port.on('message', (message: WriterRequest) => {
  if (Array.isArray(message)) {
    queued.push(message);
    if (!scheduled) {
      scheduled = true;
      // After the messages already delivered in this turn: they join this commit.
      setImmediate(commitQueued);
    }
  } else if ('prune' in message) {
    const id = message.prune;
    const pass = pruner!.runPass().then(
      (result: PruneResult) => post({ pruned: id, result }),
      (err: unknown) => post({ pruneFailed: id, message: messageOf(err) }),
    );
    passes.add(pass);
    void pass.finally(() => passes.delete(pass));
  } else if ('close' in message) {
    void close();
  }
});

/** Commits what is queued, ends a prune under way (its partial result is posted), closes the file, then tells the waiting sink. */
async function close(): Promise<void> {
  try {
    commitQueued();
    pruner?.stop();
    await Promise.all(passes);
    db.close();
  } finally {
    Atomics.store(state, CLOSED, 1);
    Atomics.notify(state, CLOSED);
    port.close();
  }
}

function post(reply: WriterReply): void {
  port.postMessage(reply);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
