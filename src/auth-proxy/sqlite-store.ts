import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { openSqlite } from '../audit/sqlite-driver.js';
import { useWal } from '../audit/sqlite-wal.js';
import type { SqliteDatabase, SqliteStatement } from '../audit/sqlite-types.js';
import type { AuthProxyStore } from './store.js';

/**
 * The facade's state in a SQLite file (the default with a state folder: auth-proxy.db beside
 * the audit trail): clients stay registered and grants survive a restart. The file holds the
 * provider's tokens only sealed (AES-GCM, grants.ts) and the signing key; it is made 0600.
 */
export class SqliteAuthProxyStore implements AuthProxyStore {
  private readonly db: SqliteDatabase;
  /** Prepared once: the resource server reads a grant on every request. */
  private readonly read: SqliteStatement;

  constructor(
    file: string,
    private readonly now: () => number = Date.now,
  ) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    this.db = openSqlite(file);
    useWal(this.db);
    this.db.exec('CREATE TABLE IF NOT EXISTS auth_proxy (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL)');
    this.db.prepare('DELETE FROM auth_proxy WHERE expires_at <= ?').run(this.now());
    this.read = this.db.prepare('SELECT value FROM auth_proxy WHERE key = ? AND expires_at > ?');
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    this.db.prepare('INSERT OR REPLACE INTO auth_proxy (key, value, expires_at) VALUES (?, ?, ?)').run(key, value, this.now() + ttlMs);
  }

  async get(key: string): Promise<string | undefined> {
    return this.getNow(key);
  }

  getNow(key: string): string | undefined {
    const row = this.read.get(key, this.now()) as { value: string } | undefined;
    return row?.value;
  }

  async take(key: string): Promise<string | undefined> {
    // One statement: two racing requests cannot both read the row (SQLite serializes writers).
    const row = this.db.prepare('DELETE FROM auth_proxy WHERE key = ? RETURNING value, expires_at').get(key) as
      | { value: string; expires_at: number }
      | undefined;
    return row && row.expires_at > this.now() ? row.value : undefined;
  }

  async delete(key: string): Promise<void> {
    this.db.prepare('DELETE FROM auth_proxy WHERE key = ?').run(key);
  }

  async compareAndSet(key: string, expected: string | undefined, value: string, ttlMs: number): Promise<boolean> {
    // BEGIN IMMEDIATE takes the write lock before the read: another process sharing the file
    // cannot write between the check and the write (it waits on the lock, then sees this value).
    return this.db
      .transaction(() => {
        const now = this.now();
        if (this.getNow(key) !== expected) return false;
        this.db.prepare('INSERT OR REPLACE INTO auth_proxy (key, value, expires_at) VALUES (?, ?, ?)').run(key, value, now + ttlMs);
        return true;
      })
      .immediate();
  }

  close(): void {
    this.db.close();
  }
}
