import type { Database } from './sqlite-schema.js';
import type { SqliteStatement } from './sqlite-types.js';

/**
 * How long the SQLite audit trail keeps records. A record is kept while it is younger than
 * `maxAgeDays` AND among the newest records whose pages fit in `maxBytes`; every other record
 * is deleted, oldest first, and nothing else. So the size bound may delete records younger than
 * `maxAgeDays` (the file must stay bounded whatever the traffic), and neither bound ever
 * deletes a record the other one keeps unless its own rule says so.
 */
export interface RetentionPolicy {
  /** Records whose time is older than this many days are deleted; false: no age bound. Default 30. */
  maxAgeDays?: number | false;
  /**
   * The pages the records use (the file's size once its free pages are returned; the `-wal`
   * file is not counted) stay within this many bytes, the oldest records deleted first; false:
   * no size bound. Default 256 MiB (about a million calls).
   */
  maxBytes?: number | false;
  /** How often the background pruner runs, in milliseconds (default 10 minutes). */
  intervalMs?: number;
}

export const DEFAULT_RETENTION = { maxAgeDays: 30, maxBytes: 256 * 1024 * 1024, intervalMs: 600_000 } as const;
/** Below this a size bound could not even hold the empty table's pages. */
export const MIN_RETENTION_BYTES = 64 * 1024;

export interface ResolvedRetention {
  maxAgeMs?: number;
  maxBytes?: number;
  intervalMs: number;
}

/** Fills in the defaults and checks the values; undefined when nothing is to be pruned. */
export function resolveRetention(policy: RetentionPolicy | false | undefined): ResolvedRetention | undefined {
  if (policy === false) return undefined;
  const maxAgeDays = policy?.maxAgeDays ?? DEFAULT_RETENTION.maxAgeDays;
  const maxBytes = policy?.maxBytes ?? DEFAULT_RETENTION.maxBytes;
  const intervalMs = policy?.intervalMs ?? DEFAULT_RETENTION.intervalMs;
  if (maxAgeDays !== false && !(typeof maxAgeDays === 'number' && Number.isFinite(maxAgeDays) && maxAgeDays > 0)) {
    throw new RangeError('retention.maxAgeDays must be a positive number of days, or false');
  }
  if (maxBytes !== false && !(Number.isSafeInteger(maxBytes) && maxBytes >= MIN_RETENTION_BYTES)) {
    throw new RangeError(`retention.maxBytes must be an integer of at least ${MIN_RETENTION_BYTES} bytes, or false`);
  }
  if (!(Number.isSafeInteger(intervalMs) && intervalMs >= 1 && intervalMs <= 2_147_483_647)) {
    throw new RangeError('retention.intervalMs must be a positive integer number of milliseconds');
  }
  if (maxAgeDays === false && maxBytes === false) return undefined;
  return {
    ...(maxAgeDays === false ? {} : { maxAgeMs: maxAgeDays * 86_400_000 }),
    ...(maxBytes === false ? {} : { maxBytes }),
    intervalMs,
  };
}

/** What one prune removed. */
export interface PruneResult {
  /** Records older than the age bound. */
  byAge: number;
  /** Records deleted (oldest first) to bring the pages in use under the size bound. */
  bySize: number;
  /** Free pages returned to the operating system (with auto_vacuum=INCREMENTAL). */
  pagesReturned: number;
}

/** What to prune: an age cut-off and/or a size bound (either may be absent). */
export interface PruneBounds {
  /** Delete records whose time is before this moment. */
  olderThan?: Date;
  maxBytes?: number;
  /** Return free pages to the operating system (default true; only where auto_vacuum=INCREMENTAL). */
  returnPages?: boolean;
}

/**
 * Rows deleted by one statement: ~1-2 ms of work (measured: 1,000 rows of ~270 bytes selected
 * and deleted in ~1.6 ms), so a background pass never holds the event loop for long.
 */
const ROWS_PER_STEP = 1000;
/** Pages returned by one `incremental_vacuum` step (~1 ms). */
const PAGES_PER_STEP = 128;

/**
 * One prune, as a sequence of small steps: the generator does one DELETE (or one
 * `incremental_vacuum`) per `next()`. The background pruner runs one step per turn of the event
 * loop; `toolwright audit prune` runs them back to back. Each step is its own statement, so
 * other writers (a server's inserts) get the database between steps.
 *
 * `result` is updated as the steps go, so a pass stopped half-way still says what it removed.
 *
 * Only records a bound condemns are deleted:
 * - age: every record whose time is before `olderThan`, read from the oldest on, a window of
 *   rows at a time, until a whole window holds none (records are in commit order and their
 *   time is when the call ended, so only a clock step puts a record out of order; such a
 *   record is kept while it is younger, and does not stop the pruning of older ones after it);
 * - size: the oldest records, a step at a time, each step taking fewer than the excess could
 *   need and the last ones one record at a time, until the pages in use fit in `maxBytes`:
 *   the fewest oldest records whose deletion frees enough pages.
 */
export function* pruneSteps(db: Database, bounds: PruneBounds, result: PruneResult = emptyResult()): Generator<void, PruneResult> {
  const statements = pruneStatements(db);
  if (!statements) return result; // no table: nothing recorded yet
  if (bounds.olderThan) {
    // Times are stored as toISOString() text, whose order is time order.
    const cutoff = bounds.olderThan.toISOString();
    let after = Number.MIN_SAFE_INTEGER;
    for (;;) {
      const rows = statements.window.all(after, ROWS_PER_STEP) as Array<[number, string]>;
      if (rows.length === 0 || !rows.some((row) => row[1] < cutoff)) break;
      const last = rows[rows.length - 1][0];
      // A range of ids read just now, filtered again by time: rows written meanwhile get higher ids.
      result.byAge += statements.deleteOldInRange.run(after, last, cutoff).changes;
      if (rows.length < ROWS_PER_STEP) break;
      after = last;
      yield;
    }
  }
  if (bounds.maxBytes !== undefined) {
    const pageSize = statements.pageSize.get() as number;
    for (let excess = usedBytes(statements) - bounds.maxBytes; excess > 0; excess = usedBytes(statements) - bounds.maxBytes) {
      const rows = statements.oldestSizes.all(ROWS_PER_STEP) as Array<[number, number]>;
      if (rows.length === 0) break;
      // Rows whose values add up to a quarter of the excess: even on pages a third full they
      // free no more than the excess. Within two pages of the bound, one row at a time, so the
      // last page freed takes no record that was not needed to free it.
      const target = excess < 2 * pageSize ? 0 : excess / 4;
      let covered = 0;
      let last = rows[0][0];
      for (const [id, bytes] of rows) {
        last = id;
        covered += bytes;
        if (covered >= target) break;
      }
      // New rows always get a higher id than any existing one: `id <= last` is exactly the rows read.
      result.bySize += statements.deleteUpTo.run(last).changes;
      yield;
    }
  }
  if (bounds.returnPages !== false && statements.autoVacuum.get() === INCREMENTAL) {
    while ((statements.freePages.get() as number) > 0) {
      const before = statements.pageCount.get() as number;
      db.pragma(`incremental_vacuum(${PAGES_PER_STEP})`);
      const returned = before - (statements.pageCount.get() as number);
      result.pagesReturned += returned;
      if (returned <= 0) break;
      yield;
    }
  }
  return result;
}

export function emptyResult(): PruneResult {
  return { byAge: 0, bySize: 0, pagesReturned: 0 };
}

/**
 * Runs a prune to the end at once (the CLI; a background pass takes one step per turn instead).
 * `between` runs after each step that has more to do: the CLI pauses there, so a server writing
 * to the same file gets the write lock between two steps instead of waiting for the whole prune.
 */
export function pruneNow(db: Database, bounds: PruneBounds, between?: (stepMs: number) => void): PruneResult {
  const steps = pruneSteps(db, bounds);
  for (;;) {
    const started = performance.now();
    const step = steps.next();
    if (step.done) return step.value;
    between?.(performance.now() - started);
  }
}

/** PRAGMA auto_vacuum's value for INCREMENTAL. */
export const INCREMENTAL = 2;

/**
 * A row's stored size: its values (texts in bytes, numbers at 8) and ~24 bytes of cell
 * pointer, sizes, rowid and record header.
 */
const TEXT_COLUMNS = ['time', 'era', 'protocol_version', 'principal', 'tool', 'arguments', 'status', 'correlation_id', 'client_name'];
/** Added by schema versions 3 to 5: counted only when the file has them (`toolwright audit prune` does not migrate a file). */
const CALLER_COLUMNS = ['client_id', 'scopes', 'tenant', 'reason', 'instance', 'upstream'];

function rowBytes(db: Database): string {
  const present = new Set(db.prepare("SELECT name FROM pragma_table_info('audit')").pluck().all() as string[]);
  return [...TEXT_COLUMNS, ...CALLER_COLUMNS.filter((column) => present.has(column))]
    .map((column) => `ifnull(length(CAST(${column} AS BLOB)), 0)`)
    .concat(["CASE typeof(request_id) WHEN 'text' THEN length(CAST(request_id AS BLOB)) ELSE 8 END", '8 + 8 + 8 + 24'])
    .join(' + ');
}

interface PruneStatements {
  window: SqliteStatement;
  oldestSizes: SqliteStatement;
  deleteOldInRange: SqliteStatement;
  deleteUpTo: SqliteStatement;
  pageCount: SqliteStatement;
  freePages: SqliteStatement;
  pageSize: SqliteStatement;
  autoVacuum: SqliteStatement;
}

function pruneStatements(db: Database): PruneStatements | undefined {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit'").get() === undefined) return undefined;
  return {
    window: db.prepare('SELECT id, time FROM audit WHERE id > ? ORDER BY id LIMIT ?').raw(),
    oldestSizes: db.prepare(`SELECT id, ${rowBytes(db)} FROM audit ORDER BY id LIMIT ?`).raw(),
    deleteOldInRange: db.prepare('DELETE FROM audit WHERE id > ? AND id <= ? AND time < ?'),
    deleteUpTo: db.prepare('DELETE FROM audit WHERE id <= ?'),
    pageCount: db.prepare('PRAGMA page_count').pluck(),
    freePages: db.prepare('PRAGMA freelist_count').pluck(),
    pageSize: db.prepare('PRAGMA page_size').pluck(),
    autoVacuum: db.prepare('PRAGMA auto_vacuum').pluck(),
  };
}

/** Bytes of the pages in use: the file's size once free pages are returned. */
function usedBytes(s: PruneStatements): number {
  return ((s.pageCount.get() as number) - (s.freePages.get() as number)) * (s.pageSize.get() as number);
}

/** The bytes an audit database's pages take in use (for messages). */
export function databaseBytesInUse(db: Database): number {
  const pages = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
  return pages * (db.pragma('page_size', { simple: true }) as number);
}
