import type { AuditReason, AuditRecord, AuditStatus } from './record.js';
import { openSqlite } from './sqlite-driver.js';
import { isBusy } from './sqlite-wal.js';
import type { SqliteDatabase, SqliteOptions } from './sqlite-types.js';

export type Database = SqliteDatabase;

/**
 * Opens an audit database. The native module is loaded on first use, not at
 * import: a server that turns auditing off (or writes elsewhere) never pays for
 * it; one that cannot load it gets a SqliteDriverError naming the fix.
 */
export function openDatabase(file: string, options?: SqliteOptions): Database {
  return openSqlite(file, options);
}

/**
 * Bumped when the table changes shape; `PRAGMA user_version` holds it.
 * 2: `method` (records of prompts/get, resources/read, completion/complete,
 * resources/subscribe beside tools/call; old rows read as tools/call).
 * 3: `client_id`, `scopes` (a JSON array) and `tenant` of the caller (old rows: NULL).
 * 4: `reason` (why a request did not run as asked) and `instance` (which server answered); old rows: NULL.
 * 5: `upstream` (the gateway upstream that served the request); old rows: NULL.
 */
const SCHEMA_VERSION = 5;

/** The method a row written before version 2 (or a record without one) stands for. */
export const DEFAULT_AUDIT_METHOD = 'tools/call';

/**
 * `request_id` has no declared type on purpose: SQLite then keeps each value
 * as it came (JSON-RPC ids are strings or numbers, and 1 is not "1").
 *
 * No secondary indexes: each one adds ~12-15 µs to every call's insert (on
 * the call path, before the reply), while queries are rare and read newest
 * rows first (`ORDER BY id DESC LIMIT n` walks the rowid tree backwards and
 * stops early); a query that must scan a million rows takes about 0.1 s.
 */
const CREATE = `
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY,
  time TEXT NOT NULL,
  era TEXT NOT NULL,
  protocol_version TEXT NOT NULL,
  principal TEXT,
  tool TEXT NOT NULL,
  arguments TEXT NOT NULL,
  status TEXT NOT NULL,
  is_error INTEGER NOT NULL,
  duration_ms REAL NOT NULL,
  correlation_id TEXT,
  request_id,
  client_name TEXT,
  error_code INTEGER,
  method TEXT NOT NULL DEFAULT 'tools/call',
  client_id TEXT,
  scopes TEXT,
  tenant TEXT,
  reason TEXT,
  instance TEXT,
  upstream TEXT
);
`;

/** Creates the table (idempotent); refuses a file written by a newer toolwright. */
export function ensureSchema(db: Database): void {
  const migrate = db.transaction(() => {
    const version = knownSchemaVersion(db);
    // A version 1 file keeps its rows: they gain the column with the default (adding a column with a constant default rewrites nothing).
    const columns = db.prepare("SELECT name FROM pragma_table_info('audit')").pluck().all() as string[];
    if (columns.length > 0 && !columns.includes('method')) db.exec("ALTER TABLE audit ADD COLUMN method TEXT NOT NULL DEFAULT 'tools/call'");
    // Version 3's caller columns, version 4's reason and instance, version 5's upstream: NULL in older rows (adding a nullable column rewrites nothing either).
    for (const column of ['client_id', 'scopes', 'tenant', 'reason', 'instance', 'upstream']) {
      if (columns.length > 0 && !columns.includes(column)) db.exec(`ALTER TABLE audit ADD COLUMN ${column} TEXT`);
    }
    db.exec(CREATE);
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  });
  try {
    // Deferred: a file already at this schema needs no write, so it opens while another process writes.
    migrate();
  } catch (err) {
    // Two servers opening one new (or older) file at once both read what is missing; the second
    // one's write then fails at once (SQLITE_BUSY_SNAPSHOT), no busy wait helping. Again, holding
    // the write lock from the start: it waits for the first, then finds its work done.
    if (!isBusy(err)) throw err;
    migrate.immediate();
  }
}

/** The file's schema version; refuses one written by a newer toolwright (whose rows this one would misread or mis-prune). */
export function knownSchemaVersion(db: Database): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) throw new Error(`the audit database has schema version ${version}; this toolwright reads up to ${SCHEMA_VERSION}`);
  return version;
}

export interface AuditRow {
  id: number;
  time: string;
  era: string;
  protocol_version: string;
  principal: string | null;
  tool: string;
  arguments: string;
  status: string;
  is_error: number;
  duration_ms: number;
  correlation_id: string | null;
  request_id: string | number | null;
  client_name: string | null;
  error_code: number | null;
  /** Absent only in a row read from a file this toolwright has not opened for writing (version 1). */
  method?: string;
  /** Absent in a row read from a file this toolwright has not opened for writing (versions 1 and 2); NULL in rows written before version 3. */
  client_id?: string | null;
  scopes?: string | null;
  tenant?: string | null;
  /** Absent in a row read from a file this toolwright has not opened for writing (versions 1 to 3); NULL in rows written before version 4. */
  reason?: string | null;
  instance?: string | null;
  /** NULL in rows written before version 5. */
  upstream?: string | null;
}

export function fromRow(row: AuditRow): AuditRecord {
  return {
    time: row.time,
    era: row.era === 'modern' ? 'modern' : 'legacy',
    protocolVersion: row.protocol_version,
    principal: row.principal,
    tool: row.tool,
    argumentsJson: row.arguments,
    status: row.status as AuditStatus,
    isError: row.is_error === 1,
    durationMs: row.duration_ms,
    correlationId: row.correlation_id,
    requestId: row.request_id,
    clientName: row.client_name,
    errorCode: row.error_code,
    // tools/call is left implicit, as the record was written.
    ...(row.method !== undefined && row.method !== DEFAULT_AUDIT_METHOD ? { method: row.method } : {}),
    ...(typeof row.client_id === 'string' ? { clientId: row.client_id } : {}),
    ...(typeof row.scopes === 'string' ? { scopes: scopesOf(row.scopes) } : {}),
    ...(typeof row.tenant === 'string' ? { tenant: row.tenant } : {}),
    ...(typeof row.reason === 'string' ? { reason: row.reason as AuditReason } : {}),
    ...(typeof row.instance === 'string' ? { instance: row.instance } : {}),
    ...(typeof row.upstream === 'string' ? { upstream: row.upstream } : {}),
  };
}

/** A row's `scopes` (JSON written by appendRow); a file edited by hand into something else reads as no scopes rather than failing the whole query. */
function scopesOf(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}
