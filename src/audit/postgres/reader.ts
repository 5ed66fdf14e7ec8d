import { AuditLogMissingError, DEFAULT_QUERY_LIMIT, type AuditQuery } from '../query.js';
import type { AuditPruneBounds, AuditPruneCounts, AuditReader, StoredAuditRecord } from '../reader.js';
import { checkPostgresDriver, createPool, describePostgresUrl, type PgPool } from './connection.js';
import { prunePostgres } from './prune.js';
import { fromPgRow, text } from './rows.js';
import { AUDIT_TABLE, auditSchemaVersion } from './schema.js';

/** Rows fetched per round trip while streaming a query. */
const PAGE_ROWS = 500;

/** The PostgreSQL trail's reader (`toolwright audit` on a `server.audit.postgres` trail). */
export class PostgresAuditReader implements AuditReader {
  readonly where: string;
  private pool?: Promise<PgPool>;

  constructor(private readonly url: string) {
    if (!/^postgres(ql)?:\/\//i.test(url)) throw new TypeError('the PostgreSQL audit trail needs a postgres:// or postgresql:// URL');
    checkPostgresDriver();
    this.where = describePostgresUrl(url);
  }

  /**
   * Oldest first, in pages of PAGE_ROWS read by id (keyset), so memory stays bounded. With a
   * limit, the first id of the newest `limit` is found first, as SQLite's reader does.
   */
  async *query(query: AuditQuery = {}): AsyncGenerator<StoredAuditRecord, void, undefined> {
    const limit = query.limit ?? DEFAULT_QUERY_LIMIT;
    if (limit !== false && (!Number.isInteger(limit) || limit < 1)) throw new RangeError('limit must be a positive integer');
    const { pool: db, version } = await this.db();
    const { where, params } = pgFilter(query);
    if (!filtersFit(query, version)) return;
    let after: string | number | undefined;
    if (limit !== false) {
      const first = await db.query(`SELECT id FROM ${AUDIT_TABLE} ${clause(where)} ORDER BY id DESC OFFSET ${limit - 1} LIMIT 1`, params);
      if (first.rows.length) after = Number(first.rows[0].id) - 1;
    }
    let remaining = limit === false ? Infinity : limit;
    while (remaining > 0) {
      const terms = after === undefined ? where : [...where, `id > $${params.length + 1}`];
      const values = after === undefined ? params : [...params, after];
      const page = await db.query(`SELECT * FROM ${AUDIT_TABLE} ${clause(terms)} ORDER BY id LIMIT ${Math.min(PAGE_ROWS, remaining)}`, values);
      for (const row of page.rows) yield fromPgRow(row);
      if (page.rows.length < PAGE_ROWS) return;
      remaining -= page.rows.length;
      after = page.rows[page.rows.length - 1].id as string;
    }
  }

  async count(query: Omit<AuditQuery, 'limit'> = {}): Promise<number> {
    const { pool: db, version } = await this.db();
    const { where, params } = pgFilter(query);
    if (!filtersFit(query, version)) return 0;
    const result = await db.query(`SELECT count(*) AS n FROM ${AUDIT_TABLE} ${clause(where)}`, params);
    return Number(result.rows[0].n);
  }

  async prune(bounds: AuditPruneBounds): Promise<AuditPruneCounts> {
    if (bounds.maxBytes !== undefined) throw new RangeError('the PostgreSQL audit trail is bounded by rows (maxRows), not by bytes');
    const { pool: db } = await this.db();
    return prunePostgres(db, {
      ...(bounds.olderThan ? { olderThan: bounds.olderThan } : {}),
      ...(bounds.maxRows !== undefined ? { maxRows: bounds.maxRows } : {}),
    });
  }

  async close(): Promise<void> {
    const pool = await this.pool?.catch(() => undefined);
    this.pool = undefined;
    await pool?.end();
  }

  /** The pool and the table's schema version, once the table is known to exist (AuditLogMissingError when no server has written here yet). */
  private async db(): Promise<{ pool: PgPool; version: number }> {
    const pool = await (this.pool ??= createPool(this.url, { max: 1 }));
    const version = await auditSchemaVersion(pool);
    if (version === 0) throw new AuditLogMissingError(this.where);
    return { pool, version };
  }
}

/** Schema version 1 has no client_id or tenant, before 4 no upstream: nothing there matches those filters (as in an older SQLite file), and nothing is wrong. */
function filtersFit(query: AuditQuery, version: number): boolean {
  return (version >= 2 || (query.clientId === undefined && query.tenant === undefined)) && (version >= 4 || query.upstream === undefined);
}

/** The WHERE terms (with $n placeholders) and values of a query's filters. */
function pgFilter(query: AuditQuery): { where: string[]; params: unknown[] } {
  if (query.afterId !== undefined && !Number.isSafeInteger(query.afterId)) throw new RangeError('afterId must be an integer');
  if (query.beforeId !== undefined && !Number.isSafeInteger(query.beforeId)) throw new RangeError('beforeId must be an integer');
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (term: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(term(`$${params.length}`));
  };
  if (query.tool !== undefined) add((n) => `tool = ${n}`, text(query.tool));
  if (query.principal !== undefined) add((n) => `principal = ${n}`, text(query.principal));
  if (query.clientId !== undefined) add((n) => `client_id = ${n}`, text(query.clientId));
  if (query.tenant !== undefined) add((n) => `tenant = ${n}`, text(query.tenant));
  if (query.upstream !== undefined) add((n) => `upstream = ${n}`, text(query.upstream));
  if (query.since !== undefined) add((n) => `time >= ${n}`, query.since);
  if (query.until !== undefined) add((n) => `time < ${n}`, query.until);
  if (query.errorsOnly) where.push("(is_error OR status = 'protocol_error')");
  if (query.afterId !== undefined) add((n) => `id > ${n}`, query.afterId);
  if (query.beforeId !== undefined) add((n) => `id < ${n}`, query.beforeId);
  return { where, params };
}

const clause = (where: string[]) => (where.length ? `WHERE ${where.join(' AND ')}` : '');
