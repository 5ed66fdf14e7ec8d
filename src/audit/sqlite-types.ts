/**
 * The part of the SQLite driver (better-sqlite3) toolwright uses, as its own types. The
 * published declarations must not name better-sqlite3's: those live in @types/better-sqlite3,
 * which a project using toolwright has no reason to install, and with `skipLibCheck: false`
 * a reference to them is TS7016 in that project's build. openSqlite (sqlite-driver.ts)
 * returns the real driver as these types, so the compiler checks that it fits them.
 */
interface SqliteRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface SqliteStatement {
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  pluck(toggleState?: boolean): this;
  expand(toggleState?: boolean): this;
  raw(toggleState?: boolean): this;
}

interface SqliteTransaction<A extends unknown[], R> {
  (...params: A): R;
  immediate(...params: A): R;
}

export interface SqliteDatabase {
  readonly open: boolean;
  prepare(source: string): SqliteStatement;
  /** `fn` wrapped in BEGIN/COMMIT (ROLLBACK when it throws); `.immediate` begins with BEGIN IMMEDIATE (takes the write lock first). */
  transaction<A extends unknown[], R>(fn: (...params: A) => R): SqliteTransaction<A, R>;
  exec(source: string): this;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): this;
}

export interface SqliteOptions {
  readonly?: boolean;
  fileMustExist?: boolean;
  /** ms to wait for a lock before SQLITE_BUSY. */
  timeout?: number;
  /** The `.node` file to load instead of the one better-sqlite3's install script built. */
  nativeBinding?: string;
}
