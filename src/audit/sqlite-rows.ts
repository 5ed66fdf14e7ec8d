import type { AuditRecord } from './record.js';
import { DEFAULT_AUDIT_METHOD } from './sqlite-schema.js';

/*
 * The INSERTs the SQLite sink writes a batch of records with, and the values each binds. Every
 * value bound costs: it goes through the driver's binder (a text is converted to UTF-8 and
 * copied) and is one more parameter for SQLite's VM. So a row binds as few as its batch allows:
 *   - narrow: the base record and `instance`; the caller details, reason and upstream
 *     (DETAIL_COLUMNS) are left out and default to NULL (binding five NULLs more cost every call
 *     ~1.5% of its instructions: bench:instructions, stdio, 85.6k against 84.3k);
 *   - wide: the narrow row's values and the details, for a batch holding a record that has them;
 *   - uniform: a batch whose records agree on everything but when and with what arguments (one
 *     client calling one tool, the usual batch) binds the values they share once, as named
 *     parameters every row of the INSERT names, and per row only the five that differ; and the
 *     `tool` column too when the records name different targets (reads of a template's URIs).
 */

const COLUMNS =
  'time, era, protocol_version, principal, tool, arguments, status, is_error, duration_ms, correlation_id, request_id, client_name, error_code, method, instance';
const DETAIL_COLUMNS = 'client_id, scopes, tenant, reason, upstream';
/** Values per row without its details (a narrow row), in `appendRow` order. */
export const NARROW_COLUMN_COUNT = 15;
/** Values per row with them (a wide row): the narrow row's, then the details'. */
export const WIDE_COLUMN_COUNT = 20;

/** The INSERT of `rows` rows, wide or narrow, with positional parameters in `appendRow` order, row after row. */
export function insertStatement(rows = 1, wide = true): string {
  const count = wide ? WIDE_COLUMN_COUNT : NARROW_COLUMN_COUNT;
  const placeholders = `(${Array(count).fill('?').join(', ')})`;
  return `INSERT INTO audit (${wide ? `${COLUMNS}, ${DETAIL_COLUMNS}` : COLUMNS}) VALUES ${Array(rows).fill(placeholders).join(', ')}`;
}

/** The record has a value for a detail column: its row must be wide. */
export function needsWideRow(entry: AuditRecord): boolean {
  return entry.clientId !== undefined || entry.scopes !== undefined || entry.tenant !== undefined || entry.reason !== undefined || entry.upstream !== undefined;
}

/**
 * Appends the row's values, in column order, to `values` (rows travel as one flat list, so a
 * batch binds to one multi-row INSERT without being copied): the narrow row's, and when `wide`
 * the details' too. better-sqlite3 binds booleans as errors, so `isError` travels as 0/1.
 */
export function appendRow(values: unknown[], entry: AuditRecord, wide: boolean): void {
  values.push(
    entry.time,
    entry.era,
    entry.protocolVersion,
    entry.principal,
    entry.tool,
    entry.argumentsJson,
    entry.status,
    entry.isError ? 1 : 0,
    entry.durationMs,
    entry.correlationId,
    entry.requestId,
    entry.clientName,
    entry.errorCode,
    entry.method ?? DEFAULT_AUDIT_METHOD,
    entry.instance ?? null,
  );
  if (wide) {
    values.push(entry.clientId ?? null, entry.scopes ? JSON.stringify(entry.scopes) : null, entry.tenant ?? null, entry.reason ?? null, entry.upstream ?? null);
  }
}

/** The narrow row's columns a uniform batch binds once (named parameters of the same names); `tool` is bound per row when the batch's targets differ. */
const SHARED_COLUMNS = ['era', 'protocol_version', 'principal', 'status', 'is_error', 'client_name', 'error_code', 'method', 'instance'];
const VARYING_COLUMNS = 'time, arguments, duration_ms, correlation_id, request_id, tool';
const SHARED_NAMES = SHARED_COLUMNS.map((column) => `@${column}`).join(', ');
const SAME_TOOL_ROW = `(?, ?, ?, ?, ?, @tool, ${SHARED_NAMES})`;
const OWN_TOOL_ROW = `(?, ?, ?, ?, ?, ?, ${SHARED_NAMES})`;

/**
 * The INSERT of `rows` rows of a uniform batch: per row its varying values (appendVaryingRow),
 * then the shared ones by name; `sameTool`: the rows' `tool` is shared too.
 */
export function uniformInsertStatement(rows: number, sameTool: boolean): string {
  return `INSERT INTO audit (${VARYING_COLUMNS}, ${SHARED_COLUMNS.join(', ')}) VALUES ${Array(rows)
    .fill(sameTool ? SAME_TOOL_ROW : OWN_TOOL_ROW)
    .join(', ')}`;
}

/** The two records' rows agree on every shared column but `tool` (compared apart; and neither needs a wide row: checked apart too). */
export function sharesColumns(a: AuditRecord, b: AuditRecord): boolean {
  return (
    a.status === b.status &&
    a.isError === b.isError &&
    a.errorCode === b.errorCode &&
    a.principal === b.principal &&
    a.clientName === b.clientName &&
    a.method === b.method &&
    a.instance === b.instance &&
    a.protocolVersion === b.protocolVersion &&
    a.era === b.era
  );
}

/** The values a uniform batch's rows share, by column name, taken from any of its records; `tool` too when `sameTool`. */
export function sharedValues(entry: AuditRecord, sameTool: boolean): Record<string, unknown> {
  const shared: Record<string, unknown> = {
    era: entry.era,
    protocol_version: entry.protocolVersion,
    principal: entry.principal,
    status: entry.status,
    is_error: entry.isError ? 1 : 0,
    client_name: entry.clientName,
    error_code: entry.errorCode,
    method: entry.method ?? DEFAULT_AUDIT_METHOD,
    instance: entry.instance ?? null,
  };
  if (sameTool) shared.tool = entry.tool;
  return shared;
}

/** Appends a uniform batch's row: the values no other row shares, in VARYING_COLUMNS order (`tool` only when not `sameTool`). */
export function appendVaryingRow(values: unknown[], entry: AuditRecord, sameTool: boolean): void {
  if (sameTool) values.push(entry.time, entry.argumentsJson, entry.durationMs, entry.correlationId, entry.requestId);
  else values.push(entry.time, entry.argumentsJson, entry.durationMs, entry.correlationId, entry.requestId, entry.tool);
}
