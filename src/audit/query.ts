import { existsSync } from 'node:fs';
import type { AuditRecord } from './record.js';
import { fromRow, openDatabase, type AuditRow } from './sqlite-schema.js';

export interface AuditQuery {
  /** Only calls of this tool (exact name). */
  tool?: string;
  /** Only calls of this caller (its id, the record's `principal`). */
  principal?: string;
  /** Only calls made with tokens issued to this OAuth client (the record's `clientId`). */
  clientId?: string;
  /** Only calls of callers in this tenant. */
  tenant?: string;
  /** Only requests a gateway relayed to this upstream (the record's `upstream`: its mount's name). */
  upstream?: string;
  /** Only calls that ended at or after this moment. */
  since?: Date;
  /** Only calls that ended before this moment. */
  until?: Date;
  /** Only calls that answered with an isError result or a protocol error. */
  errorsOnly?: boolean;
  /** Only records stored after the one with this id (ids only grow: where the last export stopped). */
  afterId?: number;
  /** Only records stored before the one with this id (with `limit`: the page before one already read, newest first). */
  beforeId?: number;
  /** The newest N matching calls (default 100); false: every matching call. */
  limit?: number | false;
}

export const DEFAULT_QUERY_LIMIT = 100;

/** Thrown when the audit file does not exist: nothing has been recorded there yet. */
export class AuditLogMissingError extends Error {
  constructor(readonly file: string) {
    super(`no audit log at ${file}`);
    this.name = 'AuditLogMissingError';
  }
}

/**
 * Reads matching records from an audit database, oldest first (the newest
 * `limit` of them, so a bounded query shows the latest calls, like a tail).
 * Opens the file read-only and closes it before returning.
 */
export function queryAuditLog(file: string, query: AuditQuery = {}): AuditRecord[] {
  return Array.from(iterateAuditLog(file, query), fromRow);
}

/**
 * The matching rows, oldest first, one at a time (better-sqlite3's `iterate`): memory stays
 * constant however many rows match, so a whole trail can be exported before it is pruned.
 * With a limit, the first row of the newest `limit` is found first (walking back from the
 * newest), then the rows are read forward from it; both reads see one snapshot. The file is
 * open (read-only) until the iteration ends, or is abandoned with `return()` (as `break` does).
 */
export function* iterateAuditLog(file: string, query: AuditQuery = {}): Generator<AuditRow, void, undefined> {
  // better-sqlite3 would create an empty file for a mistyped path; say so instead.
  if (!existsSync(file)) throw new AuditLogMissingError(file);
  const limit = query.limit ?? DEFAULT_QUERY_LIMIT;
  if (limit !== false && (!Number.isInteger(limit) || limit < 1)) throw new RangeError('limit must be a positive integer');
  const { where, params } = sqliteFilter(query);
  const db = openDatabase(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    if (!tableExists(db)) return;
    if (lacksFilteredColumn(db, query)) return;
    // One read transaction: the first row of the newest `limit` and the rows after it come from one snapshot.
    db.exec('BEGIN');
    if (limit !== false) {
      const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
      const first = db
        .prepare(`SELECT id FROM audit ${filter} ORDER BY id DESC LIMIT 1 OFFSET @offset`)
        .pluck()
        .get({ ...params, offset: limit - 1 });
      if (first !== undefined) {
        where.push('id >= @first');
        params.first = first;
      }
    }
    yield* db.prepare(`SELECT * FROM audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id`).iterate(params) as IterableIterator<AuditRow>;
  } finally {
    db.close();
  }
}

/** The WHERE terms and named parameters of a query's filters (limit aside). */
export function sqliteFilter(query: AuditQuery): { where: string[]; params: Record<string, unknown> } {
  if (query.afterId !== undefined && !Number.isSafeInteger(query.afterId)) throw new RangeError('afterId must be an integer');
  if (query.beforeId !== undefined && !Number.isSafeInteger(query.beforeId)) throw new RangeError('beforeId must be an integer');
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (query.tool !== undefined) {
    where.push('tool = @tool');
    params.tool = query.tool;
  }
  // The caller's columns (and the upstream): a file from before schema version 3 (5) has no client_id or tenant (upstream), so nothing there matches them.
  const callerFilters = { principal: query.principal, client_id: query.clientId, tenant: query.tenant, upstream: query.upstream };
  for (const [column, value] of Object.entries(callerFilters)) {
    if (value === undefined) continue;
    where.push(`${column} = @${column}`);
    params[column] = value;
  }
  // Times are stored as toISOString() text, whose order is time order.
  if (query.since !== undefined) {
    where.push('time >= @since');
    params.since = query.since.toISOString();
  }
  if (query.until !== undefined) {
    where.push('time < @until');
    params.until = query.until.toISOString();
  }
  if (query.errorsOnly) where.push("(is_error = 1 OR status = 'protocol_error')");
  if (query.afterId !== undefined) {
    where.push('id > @afterId');
    params.afterId = query.afterId;
  }
  if (query.beforeId !== undefined) {
    where.push('id < @beforeId');
    params.beforeId = query.beforeId;
  }
  return { where, params };
}

/**
 * True when the query filters on a column the file does not have yet (client_id and tenant came
 * with schema version 3, upstream with 5): no row there can match, and nothing is wrong.
 */
export function lacksFilteredColumn(db: ReturnType<typeof openDatabase>, query: Omit<AuditQuery, 'limit'>): boolean {
  const byColumn = { client_id: query.clientId, tenant: query.tenant, upstream: query.upstream };
  const filtered = Object.keys(byColumn).filter((column) => byColumn[column as keyof typeof byColumn] !== undefined);
  if (filtered.length === 0) return false;
  const columns = columnsOf(db);
  return filtered.some((column) => !columns.includes(column));
}

function columnsOf(db: ReturnType<typeof openDatabase>): string[] {
  return db.prepare("SELECT name FROM pragma_table_info('audit')").pluck().all() as string[];
}

export function tableExists(db: ReturnType<typeof openDatabase>): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit'").get() !== undefined;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * `--since` values: a duration back from `now` (`30s`, `30m`, `1h`, `2d`,
 * `1w`) or an ISO 8601 date/time (`2026-07-28`, `2026-07-28T10:00:00Z`).
 * Returns undefined for anything else.
 */
export function parseSince(text: string, now: Date = new Date()): Date | undefined {
  const trimmed = text.trim();
  const duration = /^(\d{1,9})\s*([smhdw])$/i.exec(trimmed);
  if (duration) return new Date(now.getTime() - Number(duration[1]) * UNITS[duration[2].toLowerCase()]);
  // Only ISO-looking text: Date.parse also accepts loose forms such as "1" or "May".
  if (!/^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/i.test(trimmed)) return undefined;
  const time = Date.parse(trimmed);
  return Number.isNaN(time) ? undefined : new Date(time);
}
