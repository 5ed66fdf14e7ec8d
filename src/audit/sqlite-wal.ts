import type { SqliteDatabase } from './sqlite-types.js';

/** How long useWal waits for another connection's write lock: the busy timeout every toolwright database sets. */
const WAL_WAIT_MS = 5000;

/**
 * Switches the database to WAL mode, waiting for another connection that holds the file.
 *
 * SQLite answers the switch with SQLITE_BUSY at once, whatever the busy timeout, when another
 * connection holds the write lock of a file still in rollback mode: the switch takes a read lock
 * and then upgrades it, and a reader waiting to upgrade could deadlock, so SQLite does not wait
 * there. Two processes opening one new file together meet this (one of two servers sharing a new
 * task store failed its first call so). The switch is tried again, with short pauses, for as long
 * as the busy timeout would have waited: by then the other connection has switched the file (the
 * next try finds it in WAL mode) or let it go.
 */
export function useWal(db: SqliteDatabase, waitMs = WAL_WAIT_MS): void {
  const deadline = Date.now() + waitMs;
  for (let pauseMs = 1; ; pauseMs = Math.min(pauseMs * 2, 50)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
      pause(pauseMs);
    }
  }
}

/** SQLITE_BUSY or one of its extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_BUSY_RECOVERY…). */
export function isBusy(err: unknown): boolean {
  return String((err as { code?: unknown } | null)?.code).startsWith('SQLITE_BUSY');
}

const pauseCell = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms`: the stores open synchronously (the driver is synchronous), and a constructor cannot await. */
function pause(ms: number): void {
  Atomics.wait(pauseCell, 0, 0, ms);
}
