import { existsSync } from 'node:fs';
import { AuditLogMissingError, iterateAuditLog, lacksFilteredColumn, sqliteFilter, tableExists, type AuditQuery } from './query.js';
import type { AuditRecord } from './record.js';
import { pruneNow } from './retention.js';
import { fromRow, knownSchemaVersion, openDatabase } from './sqlite-schema.js';

/** A record as a trail stores it: with the id that orders the trail (the cursor of `afterId`). */
export interface StoredAuditRecord extends AuditRecord {
  id: number;
}

/** What to prune now. An engine refuses (RangeError) a bound it does not keep: SQLite keeps bytes, PostgreSQL rows. */
export interface AuditPruneBounds {
  /** Delete records whose time is before this moment. */
  olderThan?: Date;
  /** Keep the newest this many records (PostgreSQL). */
  maxRows?: number;
  /** Delete the oldest records until the pages in use fit in this many bytes (SQLite). */
  maxBytes?: number;
}

export interface AuditPruneCounts {
  /** Records older than the age bound. */
  byAge: number;
  /** Records deleted, oldest first, for the row or size bound. */
  byBound: number;
}

/**
 * Reads (and prunes) an audit trail, whatever stores it: what `toolwright audit` uses. The
 * SQLite trail's is SqliteAuditReader, PostgreSQL's PostgresAuditReader (toolwright's
 * `postgres` module); another engine plugs in by implementing this beside its AuditSink.
 */
export interface AuditReader {
  /** Where the trail is, fit to show (no password). */
  readonly where: string;
  /**
   * The matching records, oldest first (the newest `limit` of them, default 100; `limit: false`:
   * every one), streamed: memory stays bounded however many match. Throws AuditLogMissingError
   * when there is no trail there at all.
   */
  query(query?: AuditQuery): AsyncIterable<StoredAuditRecord>;
  /** How many records match (`limit` ignored). */
  count(query?: Omit<AuditQuery, 'limit'>): Promise<number>;
  /** Deletes what the bounds condemn, in small steps (writers get the trail between them). */
  prune(bounds: AuditPruneBounds): Promise<AuditPruneCounts>;
  close(): Promise<void>;
}

/** The SQLite trail's reader: one file, opened for each operation and closed after it. */
export class SqliteAuditReader implements AuditReader {
  constructor(readonly file: string) {}

  get where(): string {
    return this.file;
  }

  async *query(query: AuditQuery = {}): AsyncGenerator<StoredAuditRecord, void, undefined> {
    for (const row of iterateAuditLog(this.file, query)) yield { id: row.id, ...fromRow(row) };
  }

  count(query: Omit<AuditQuery, 'limit'> = {}): Promise<number> {
    return Promise.resolve().then(() => {
      const db = this.openExisting(true);
      try {
        if (!tableExists(db)) return 0;
        if (lacksFilteredColumn(db, query)) return 0;
        const { where, params } = sqliteFilter(query);
        return db
          .prepare(`SELECT count(*) FROM audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`)
          .pluck()
          .get(params) as number;
      } finally {
        db.close();
      }
    });
  }

  prune(bounds: AuditPruneBounds): Promise<AuditPruneCounts> {
    return Promise.resolve().then(() => {
      if (bounds.maxRows !== undefined) throw new RangeError('the SQLite audit trail is bounded by size (maxBytes), not by rows');
      const db = this.openExisting(false);
      try {
        db.pragma('busy_timeout = 5000');
        knownSchemaVersion(db);
        const result = pruneNow(db, {
          ...(bounds.olderThan ? { olderThan: bounds.olderThan } : {}),
          ...(bounds.maxBytes !== undefined ? { maxBytes: bounds.maxBytes } : {}),
        });
        return { byAge: result.byAge, byBound: result.bySize };
      } finally {
        db.close();
      }
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private openExisting(readonly: boolean) {
    // better-sqlite3 would create an empty file for a mistyped path; say so instead.
    if (!existsSync(this.file)) throw new AuditLogMissingError(this.file);
    return openDatabase(this.file, { readonly, fileMustExist: true });
  }
}
