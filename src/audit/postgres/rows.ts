import { nodeCrypto } from '../../runtime/lazy-crypto.js';
import type { AuditReason, AuditRecord, AuditStatus } from '../record.js';
import type { StoredAuditRecord } from '../reader.js';
import { AUDIT_TABLE } from './schema.js';

/** A record on its way to PostgreSQL, with the id that makes a retried insert a no-op. */
export interface PendingRow {
  recordId: string;
  entry: AuditRecord;
  /** Why PostgreSQL refused this row for its values (it is then dropped, not retried). */
  refused?: unknown;
}

export function pendingRow(entry: AuditRecord): PendingRow {
  return { recordId: nodeCrypto().randomUUID(), entry };
}

/**
 * One INSERT for any number of rows: each column travels as one array parameter and `unnest`
 * turns them back into rows (a statement is atomic, so the batch commits whole or not at all;
 * 21 parameters whatever the batch's size, under PostgreSQL's 65,535). `ON CONFLICT DO
 * NOTHING`: rows a lost-reply retry sends again are already there.
 */
export const INSERT_ROWS = `
INSERT INTO ${AUDIT_TABLE} (record_id, time, era, protocol_version, principal, method, tool, arguments, status, is_error, duration_ms, correlation_id, request_id, client_name, error_code, client_id, scopes, tenant, reason, instance, upstream)
SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::boolean[], $11::float8[], $12::text[], $13::jsonb[], $14::text[], $15::int[], $16::text[], $17::jsonb[], $18::text[], $19::text[], $20::text[], $21::text[])
ON CONFLICT (record_id) DO NOTHING`;

const COLUMN_COUNT = 21;

/**
 * PostgreSQL's text (and jsonb) cannot hold U+0000: it becomes U+FFFD, so no client-chosen string
 * can fail a batch. The reader's filters pass through it too, so they find what was stored.
 */
export function text<T extends string | null>(value: T): T {
  return (typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value) as T;
}

/** The column arrays of INSERT_ROWS. */
export function insertParameters(rows: readonly PendingRow[]): unknown[][] {
  const columns: unknown[][] = Array.from({ length: COLUMN_COUNT }, () => new Array<unknown>(rows.length));
  rows.forEach(({ recordId, entry: e }, i) => {
    columns[0][i] = recordId;
    columns[1][i] = e.time;
    columns[2][i] = text(e.era);
    columns[3][i] = text(e.protocolVersion);
    columns[4][i] = text(e.principal);
    columns[5][i] = text(e.method ?? 'tools/call');
    columns[6][i] = text(e.tool);
    columns[7][i] = text(e.argumentsJson);
    columns[8][i] = text(e.status);
    columns[9][i] = e.isError;
    columns[10][i] = e.durationMs;
    columns[11][i] = text(e.correlationId);
    columns[12][i] = e.requestId === null ? null : JSON.stringify(typeof e.requestId === 'string' ? text(e.requestId) : e.requestId);
    columns[13][i] = text(e.clientName);
    columns[14][i] = e.errorCode;
    columns[15][i] = text(e.clientId ?? null);
    columns[16][i] = e.scopes ? JSON.stringify(e.scopes.map((scope) => text(scope))) : null;
    columns[17][i] = text(e.tenant ?? null);
    columns[18][i] = e.reason ?? null;
    columns[19][i] = text(e.instance ?? null);
    columns[20][i] = text(e.upstream ?? null);
  });
  return columns;
}

/** A stored row as the record it was (tools/call left implicit, as SQLite's reader has it). */
export function fromPgRow(row: Record<string, unknown>): StoredAuditRecord {
  const time = row.time instanceof Date ? row.time.toISOString() : new Date(String(row.time)).toISOString();
  const method = row.method as string;
  return {
    id: Number(row.id),
    time,
    era: row.era === 'modern' ? 'modern' : 'legacy',
    protocolVersion: row.protocol_version as string,
    principal: (row.principal as string | null) ?? null,
    tool: row.tool as string,
    argumentsJson: row.arguments as string,
    status: row.status as AuditStatus,
    isError: row.is_error === true,
    durationMs: Number(row.duration_ms),
    correlationId: (row.correlation_id as string | null) ?? null,
    requestId: (row.request_id as string | number | null) ?? null,
    clientName: (row.client_name as string | null) ?? null,
    errorCode: row.error_code === null || row.error_code === undefined ? null : Number(row.error_code),
    ...(method && method !== 'tools/call' ? { method } : {}),
    // As SQLite's reader: absent when NULL (rows written before schema version 2, callers without them).
    ...(typeof row.client_id === 'string' ? { clientId: row.client_id } : {}),
    ...(row.scopes !== null && row.scopes !== undefined ? { scopes: scopesOf(row.scopes) } : {}),
    ...(typeof row.tenant === 'string' ? { tenant: row.tenant } : {}),
    ...(typeof row.reason === 'string' ? { reason: row.reason as AuditReason } : {}),
    ...(typeof row.instance === 'string' ? { instance: row.instance } : {}),
    ...(typeof row.upstream === 'string' ? { upstream: row.upstream } : {}),
  };
}

/** A row's `scopes` (a JSON array as written); one edited by hand into something else reads as no scopes, as in SQLite. */
function scopesOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : [];
}
