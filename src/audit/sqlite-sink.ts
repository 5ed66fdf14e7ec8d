import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { BackgroundPruner } from './background-pruner.js';
import { SqliteAuditReader, type AuditReader } from './reader.js';
import type { AuditRecord, AuditSink } from './record.js';
import { resolveRetention, type PruneResult, type ResolvedRetention, type RetentionPolicy } from './retention.js';
import { checkSqliteDriver } from './sqlite-driver.js';
import { appendRow, appendVaryingRow, insertStatement, needsWideRow, sharedValues, sharesColumns, uniformInsertStatement } from './sqlite-rows.js';
import { ensureSchema, openDatabase, type Database } from './sqlite-schema.js';
import { useWal } from './sqlite-wal.js';
import type { SqliteStatement } from './sqlite-types.js';

export interface SqliteAuditSinkOptions {
  /** 'full' also survives a power loss, at a cost per commit (default 'normal'). */
  synchronous?: 'normal' | 'full';
  /** false: commit each record at once (default true). */
  batch?: boolean;
  /**
   * How long records are kept, enforced in the background (default: 30 days and 256 MiB,
   * see DEFAULT_RETENTION); false keeps every record.
   */
  retention?: RetentionPolicy | false;
  /** Called when a background prune fails (default: a process warning); the next pass retries. */
  onRetentionError?: (err: unknown) => void;
  /** better-sqlite3's `nativeBinding`: the `.node` file to load instead of the one its install script built. */
  nativeBinding?: string;
}

/**
 * Rows bound to one INSERT at most (320 parameters when wide). One multi-row INSERT costs ~25% less CPU
 * per row than an INSERT per row in a transaction (measured with batches of 8, the stdio
 * transport's group: 5.0 against 6.8 µs per row, a commit included); past 16 rows per
 * statement the gain levels off. Values are bound positionally and spread, not passed as an
 * array: the driver reads an array element by element through V8's generic property lookup
 * (-17% instructions per insert); a JSON batch unpacked by `json_each` cost more (+35%).
 */
const ROWS_PER_INSERT = 16;

/**
 * The default audit sink: one SQLite file in WAL mode.
 *
 * Durability: better-sqlite3 is synchronous, so `record` returns only after
 * the row is committed to the WAL, before the pipeline lets the reply go out.
 * With `synchronous=NORMAL` a commit is in the operating system's hands when
 * it returns: it survives a crash or SIGKILL of this process (a power loss may
 * take the last commits; `synchronous: 'full'` trades speed for that too).
 *
 * Records that arrive in the same turn of the event loop are committed
 * together, atomically, at the end of that turn (or when a transport
 * calls `flush()` after a group of requests); `record` returns a
 * promise that settles after the commit, and the pipeline waits for it before
 * answering. Under load this turns one commit per call into one per batch,
 * with the same guarantee.
 *
 * The file is opened on the first record, so a server that never serves a
 * call leaves no file behind. The driver is checked when the sink is built:
 * a native module that is missing or built for another Node.js is a
 * SqliteDriverError then, naming the fix, not a failed record on every call.
 *
 * Retention (default 30 days and 256 MiB, `retention: false` keeps all) is
 * applied in the background once the file is open: a pass every few minutes,
 * in small steps between calls, never on a call's path (see BackgroundPruner).
 */
export class SqliteAuditSink implements AuditSink {
  private db?: Database;
  /**
   * `inserts[n - 1]` inserts n narrow rows, `wideInserts[n - 1]` n wide ones, `uniformInserts[n - 1]`
   * and `ownToolInserts[n - 1]` n rows of a uniform batch, its tool shared or not (sqlite-rows.ts);
   * each is prepared when a batch of that size and form first comes.
   */
  private readonly inserts: SqliteStatement[] = [];
  private readonly wideInserts: SqliteStatement[] = [];
  private readonly uniformInserts: SqliteStatement[] = [];
  private readonly ownToolInserts: SqliteStatement[] = [];
  private insertInChunks?: (batch: Batch) => void;
  /** The open batch: its records, and the form its rows take so far. */
  private pending: Batch = emptyBatch();
  private committed?: Promise<void>;
  /** Commits the pending batch and settles its promise; set while a batch is open. */
  private commitBatch?: () => void;

  private readonly retention?: ResolvedRetention;
  private pruner?: BackgroundPruner;

  /** Operator API: a reader of this trail's file. */
  reader(): AuditReader {
    return new SqliteAuditReader(this.file);
  }

  constructor(
    readonly file: string,
    private readonly options: SqliteAuditSinkOptions = {},
  ) {
    this.retention = resolveRetention(options.retention);
    checkSqliteDriver(options.nativeBinding);
  }

  record(entry: AuditRecord): void | Promise<void> {
    // Opening (or failing to open) the file happens now, not in the batch.
    this.open();
    if (this.options.batch === false) {
      this.insert(addTo(emptyBatch(), entry));
      return;
    }
    addTo(this.pending, entry);
    this.committed ??= new Promise<void>((resolve, reject) => {
      this.commitBatch = () => {
        const batch = this.pending;
        this.pending = emptyBatch();
        this.committed = undefined;
        this.commitBatch = undefined;
        try {
          this.insert(batch);
          resolve();
        } catch (err) {
          reject(err);
        }
      };
      setImmediate(() => this.commitBatch?.());
    });
    return this.committed;
  }

  /** Commits the open batch now (the end-of-turn commit then finds nothing to do). */
  flush(): void {
    this.commitBatch?.();
  }

  /**
   * Applies the retention policy now, in the background's small steps, and resolves with what
   * it removed (nothing when retention is off). Opens the file if no record has yet.
   */
  prune(): Promise<PruneResult> {
    this.open();
    if (!this.pruner) return Promise.resolve({ byAge: 0, bySize: 0, pagesReturned: 0 });
    return this.pruner.runPass();
  }

  /**
   * Opens the file now (creating it and its folder) and checks it takes a write, throwing what
   * the first record would. The write is rolled back: the schema version rewritten as it is.
   * (Opening alone passes for a file SQLite could only open read-only.)
   */
  probe(): void {
    this.open();
    const db = this.db!;
    db.exec('BEGIN IMMEDIATE');
    try {
      db.pragma(`user_version = ${db.pragma('user_version', { simple: true }) as number}`);
    } finally {
      db.exec('ROLLBACK');
    }
  }

  close(): void {
    this.commitBatch?.();
    this.pruner?.stop();
    this.pruner = undefined;
    this.db?.close();
    this.db = undefined;
    this.inserts.length = 0;
    this.wideInserts.length = 0;
    this.uniformInserts.length = 0;
    this.ownToolInserts.length = 0;
    this.insertInChunks = undefined;
  }

  /**
   * Writes the batch's rows atomically. Up to ROWS_PER_INSERT rows go in one multi-row INSERT,
   * which needs no BEGIN and COMMIT of its own (a statement is atomic); a bigger batch
   * takes several, in one transaction.
   */
  private insert(batch: Batch): void {
    if (batch.records.length <= ROWS_PER_INSERT) this.insertRows(batch, 0, batch.records.length);
    else this.insertInChunks!(batch);
  }

  /** One INSERT of the batch's records from `from` up to `to`, in the batch's form. */
  private insertRows(batch: Batch, from: number, to: number): void {
    const { records, wide, uniform, sameTool } = batch;
    const rows = to - from;
    const values: unknown[] = [];
    if (uniform) {
      values.push(sharedValues(records[from], sameTool));
      for (let i = from; i < to; i++) appendVaryingRow(values, records[i], sameTool);
      const prepared = sameTool ? this.uniformInserts : this.ownToolInserts;
      (prepared[rows - 1] ??= this.db!.prepare(uniformInsertStatement(rows, sameTool))).run(...values);
      return;
    }
    for (let i = from; i < to; i++) appendRow(values, records[i], wide);
    const prepared = wide ? this.wideInserts : this.inserts;
    (prepared[rows - 1] ??= this.db!.prepare(insertStatement(rows, wide))).run(...values);
  }

  private open(): void {
    if (this.db) return;
    // Audit data names callers and their arguments: a folder created here is private to this user.
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const db = openDatabase(this.file, this.options.nativeBinding === undefined ? undefined : { nativeBinding: this.options.nativeBinding });
    try {
      // A new file returns the pages that pruning frees to the operating system. Only a file
      // with no pages yet (before WAL mode and the first table) can take it; asking an existing
      // file would wait for its write lock for nothing (changing its mode takes a VACUUM, which
      // `toolwright audit prune --vacuum` runs).
      if (db.pragma('page_count', { simple: true }) === 0) db.pragma('auto_vacuum = INCREMENTAL');
      useWal(db);
      db.pragma(`synchronous = ${this.options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      // Several servers (or `toolwright audit`) may share the file: wait for a writer instead of failing.
      db.pragma('busy_timeout = 5000');
      // This connection appends at the end of the rowid tree and prunes in small steps: it
      // rereads few pages, so it keeps 512 KiB of them in memory, not SQLite's default 2 MiB.
      db.pragma('cache_size = -512');
      ensureSchema(db);
      this.insertInChunks = db.transaction((batch: Batch) => {
        const count = batch.records.length;
        for (let at = 0; at < count; at += ROWS_PER_INSERT) this.insertRows(batch, at, Math.min(at + ROWS_PER_INSERT, count));
      });
    } catch (err) {
      db.close();
      throw err;
    }
    this.db = db;
    if (this.retention) {
      const onError = this.options.onRetentionError ?? warnRetentionFailure;
      this.pruner = new BackgroundPruner(db, this.retention, onError);
      this.pruner.start();
    }
  }
}

/**
 * Records waiting for one commit, kept as handed over (a record is built once per request and
 * never changed after: audit.ts) and turned into rows when committed. `wide`: one of them has
 * caller details, a reason or an upstream, so every row binds them. `uniform`: none is wide and
 * all share the columns a uniform INSERT binds once (sqlite-rows.ts); the usual batch, one client
 * calling one tool. `sameTool`: they name one target too (reads of a template's URIs do not).
 * (Binding `time` once as well, for a batch made within one millisecond, was tried and left out:
 * callgrind saw no gain, and under it a batch spans many milliseconds.)
 */
interface Batch {
  records: AuditRecord[];
  wide: boolean;
  uniform: boolean;
  sameTool: boolean;
}

function emptyBatch(): Batch {
  return { records: [], wide: false, uniform: true, sameTool: true };
}

function addTo(batch: Batch, entry: AuditRecord): Batch {
  const first = batch.records[0];
  if (needsWideRow(entry)) {
    batch.wide = true;
    batch.uniform = false;
  } else if (batch.uniform && first !== undefined) {
    batch.uniform = sharesColumns(first, entry);
    batch.sameTool &&= first.tool === entry.tool;
  }
  batch.records.push(entry);
  return batch;
}

function warnRetentionFailure(err: unknown): void {
  process.emitWarning(
    `audit retention: a background prune failed (the next pass retries): ${err instanceof Error ? err.message : String(err)}`,
    'ToolwrightAuditWarning',
  );
}
