import type { AuditQuery } from '../../audit/query.js';
import type { AuditReader, StoredAuditRecord } from '../../audit/reader.js';

/** The most records one operator query returns: the console pages with `afterId`. */
export const MAX_OPERATOR_LIMIT = 500;
const MAX_NAME_LENGTH = 256;

/** Thrown for a filter value the console passed that is not a valid filter: its message is fit to show. */
export class OperatorQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperatorQueryError';
  }
}

/** What the operator panel filters by; every value may come straight from a query string. */
export interface OperatorAuditFilter {
  tool?: unknown;
  caller?: unknown;
  /** 'error': only calls that answered with an error; 'any' (default): all. */
  outcome?: unknown;
  since?: unknown;
  until?: unknown;
  limit?: unknown;
  /** Only records stored after the one with this id (the cursor of the next page). */
  afterId?: unknown;
  /** Only records stored before the one with this id (the cursor of the older page). */
  beforeId?: unknown;
}

function name(field: string, value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new OperatorQueryError(`${field} must be a string`);
  if (value.length > MAX_NAME_LENGTH) throw new OperatorQueryError(`${field} is longer than ${MAX_NAME_LENGTH} characters`);
  return value;
}

export function parseOperatorDate(field: string, value: unknown): Date | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > 64) throw new OperatorQueryError(`${field} must be an ISO 8601 date, e.g. 2026-01-31T12:00:00Z`);
  // Date.parse accepts odd forms; require at least a calendar date up front.
  const date = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) throw new OperatorQueryError(`${field} must be an ISO 8601 date, e.g. 2026-01-31T12:00:00Z`);
  return date;
}

function positiveInteger(field: string, value: unknown, max: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1) throw new OperatorQueryError(`${field} must be a positive integer`);
  return Math.min(number, max);
}

/** Turns hostile filter values into an AuditQuery, or throws OperatorQueryError saying which value is wrong. */
export function toAuditQuery(filter: OperatorAuditFilter): AuditQuery {
  if (filter === null || typeof filter !== 'object') throw new OperatorQueryError('the filter must be an object');
  const outcome = filter.outcome ?? 'any';
  if (outcome !== 'any' && outcome !== 'error' && outcome !== '') throw new OperatorQueryError("outcome must be 'any' or 'error'");
  const query: AuditQuery = { limit: positiveInteger('limit', filter.limit, MAX_OPERATOR_LIMIT) ?? 100 };
  const tool = name('tool', filter.tool);
  const caller = name('caller', filter.caller);
  const since = parseOperatorDate('since', filter.since);
  const until = parseOperatorDate('until', filter.until);
  const afterId = positiveInteger('afterId', filter.afterId, Number.MAX_SAFE_INTEGER);
  const beforeId = positiveInteger('beforeId', filter.beforeId, Number.MAX_SAFE_INTEGER);
  if (tool !== undefined) query.tool = tool;
  if (caller !== undefined) query.principal = caller;
  if (since) query.since = since;
  if (until) query.until = until;
  if (since && until && since > until) throw new OperatorQueryError('since is after until');
  if (afterId !== undefined) query.afterId = afterId;
  if (beforeId !== undefined) query.beforeId = beforeId;
  if (outcome === 'error') query.errorsOnly = true;
  return query;
}

/**
 * The records an operator asked for, as the trail stores them: the arguments are the sink's
 * redacted JSON text, passed on untouched (nothing here can or does un-redact them).
 */
export async function queryAuditRecords(reader: AuditReader, filter: OperatorAuditFilter = {}): Promise<StoredAuditRecord[]> {
  const records: StoredAuditRecord[] = [];
  for await (const record of reader.query(toAuditQuery(filter))) records.push(record);
  return records;
}
