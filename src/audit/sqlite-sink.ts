import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { AuditRecord, AuditSink } from './record.js';
import { ensureSchema, insertStatement, openDatabase, toRow, type Database } from './sqlite-schema.js';

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
 * together, in one transaction, at the end of that turn (or when a transport
 * calls `flush()` after a group of requests); `record` returns a
 * promise that settles after the commit, and the pipeline waits for it before
 * answering. Under load this turns one commit per call into one per batch,
 * with the same guarantee.
 *
 * The file is opened on the first record, so building a server stays cheap
 * and a server that never serves a call leaves no file behind.
 */
export class SqliteAuditSink implements AuditSink {
  private db?: Database;
  private insert?: BetterSqlite3.Statement;
  private insertMany?: (rows: unknown[][]) => void;
  private pending: unknown[][] = [];
  private committed?: Promise<void>;
  /** Commits the pending batch and settles its promise; set while a batch is open. */
  private commitBatch?: () => void;

  constructor(
    readonly file: string,
    private readonly options: { synchronous?: 'normal' | 'full'; /** false: commit each record at once (default true). */ batch?: boolean } = {},
  ) {}

  record(entry: AuditRecord): void | Promise<void> {
    const row = toRow(entry);
    // Opening (or failing to open) the file happens now, not in the batch.
    const insert = this.statement();
    if (this.options.batch === false) {
      insert.run(...row);
      return;
    }
    this.pending.push(row);
    this.committed ??= new Promise<void>((resolve, reject) => {
      this.commitBatch = () => {
        const rows = this.pending;
        this.pending = [];
        this.committed = undefined;
        this.commitBatch = undefined;
        try {
          const insert = this.statement();
          // One row commits by itself (autocommit is atomic too): BEGIN and COMMIT as statements
          // of their own cost ~10% of a lone call's audit write, the usual case for a client
          // that waits for each answer.
          if (rows.length === 1) insert.run(...rows[0]);
          else this.insertMany!(rows);
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

  close(): void {
    this.commitBatch?.();
    this.db?.close();
    this.db = undefined;
    this.insert = undefined;
    this.insertMany = undefined;
  }

  private statement(): BetterSqlite3.Statement {
    if (this.insert) return this.insert;
    // Audit data names callers and their arguments: a folder created here is private to this user.
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const db = openDatabase(this.file);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${this.options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      // Several servers (or `toolwright audit`) may share the file: wait for a writer instead of failing.
      db.pragma('busy_timeout = 5000');
      ensureSchema(db);
      // One prepared single-row INSERT per record, in one transaction per batch: measured with
      // callgrind, multi-row INSERTs (+12% instructions per call) and a JSON batch unpacked by
      // json_each (+35%) both cost more. Positional parameters bind faster than named ones, and
      // spread ones faster than an array (-17% instructions per insert: the driver reads an
      // array element by element through V8's generic property lookup).
      const insert = db.prepare(insertStatement());
      this.insert = insert;
      this.insertMany = db.transaction((rows: unknown[][]) => {
        for (const row of rows) insert.run(...row);
      });
    } catch (err) {
      db.close();
      throw err;
    }
    this.db = db;
    return this.insert;
  }
}
