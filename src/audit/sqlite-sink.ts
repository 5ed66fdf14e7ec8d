import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { AuditRecord, AuditSink } from './record.js';
import { ensureSchema, INSERT, openDatabase, toRow, type Database } from './sqlite-schema.js';

/**
 * The default audit sink: one SQLite file in WAL mode.
 *
 * Durability: better-sqlite3 is synchronous, so `record` returns only after
 * the row is committed to the WAL, before the pipeline lets the reply go out.
 * With `synchronous=NORMAL` a commit is in the operating system's hands when
 * it returns: it survives a crash or SIGKILL of this process (a power loss may
 * take the last commits; `synchronous: 'full'` trades speed for that too).
 *
 * The file is opened on the first record, so building a server stays cheap
 * and a server that never serves a call leaves no file behind.
 */
export class SqliteAuditSink implements AuditSink {
  private db?: Database;
  private insert?: BetterSqlite3.Statement;

  constructor(
    readonly file: string,
    private readonly options: { synchronous?: 'normal' | 'full' } = {},
  ) {}

  record(entry: AuditRecord): void {
    this.statement().run(toRow(entry));
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
    this.insert = undefined;
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
      this.insert = db.prepare(INSERT);
    } catch (err) {
      db.close();
      throw err;
    }
    this.db = db;
    return this.insert;
  }
}
