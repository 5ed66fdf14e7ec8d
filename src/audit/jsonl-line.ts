import type { AuditRecord, AuditReason, AuditStatus } from './record.js';
import type { StoredAuditRecord } from './reader.js';

/**
 * One audit record as a JSON-lines trail keeps it: the record's fields, with the arguments (already
 * redacted JSON text) spliced in as an object under `arguments`, so `jq` reads them as data.
 */
export function auditJsonLine(e: AuditRecord): string {
  // A copy of one fixed shape, not `{ argumentsJson, ...rest }`: V8 serializes an object literal
  // of known keys on its fast path (a third of the line's cost, which is most of a record's in the
  // default trail). Absent fields are undefined, which JSON.stringify leaves out.
  const fields = {
    time: e.time,
    era: e.era,
    protocolVersion: e.protocolVersion,
    principal: e.principal,
    clientId: e.clientId,
    scopes: e.scopes,
    tenant: e.tenant,
    method: e.method,
    tool: e.tool,
    status: e.status,
    isError: e.isError,
    durationMs: e.durationMs,
    correlationId: e.correlationId,
    requestId: e.requestId,
    clientName: e.clientName,
    errorCode: e.errorCode,
    reason: e.reason,
    instance: e.instance,
    upstream: e.upstream,
  } satisfies Record<Exclude<keyof AuditRecord, 'argumentsJson'>, unknown>;
  return `${JSON.stringify(fields).slice(0, -1)},"arguments":${e.argumentsJson}}\n`;
}

const STATUSES: ReadonlySet<string> = new Set([
  'ok',
  'input_required',
  'tool_error',
  'invalid_arguments',
  'refused',
  'timeout',
  'cancelled',
  'internal_error',
  'protocol_error',
]);

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * A line read back, or undefined for one that is not a record (a line torn by a crash mid-write,
 * or text someone else put in the file). Only the record's known fields are taken, each checked
 * for its type: the file is input like any other.
 */
export function parseAuditJsonLine(line: string, id: number): StoredAuditRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const r = value as Record<string, unknown>;
  if (typeof r.time !== 'string' || typeof r.tool !== 'string' || typeof r.status !== 'string' || !STATUSES.has(r.status)) return undefined;
  const requestId = typeof r.requestId === 'string' || typeof r.requestId === 'number' ? r.requestId : null;
  const record: StoredAuditRecord = {
    id,
    time: r.time,
    era: r.era === 'legacy' ? 'legacy' : 'modern',
    protocolVersion: str(r.protocolVersion) ?? '',
    principal: str(r.principal),
    tool: r.tool,
    argumentsJson: r.arguments === undefined ? '{}' : JSON.stringify(r.arguments),
    status: r.status as AuditStatus,
    isError: r.isError === true,
    durationMs: typeof r.durationMs === 'number' ? r.durationMs : 0,
    correlationId: str(r.correlationId),
    requestId,
    clientName: str(r.clientName),
    errorCode: typeof r.errorCode === 'number' ? r.errorCode : null,
  };
  if (typeof r.clientId === 'string') record.clientId = r.clientId;
  if (Array.isArray(r.scopes) && r.scopes.every((s) => typeof s === 'string')) record.scopes = r.scopes as string[];
  if (typeof r.tenant === 'string') record.tenant = r.tenant;
  if (typeof r.method === 'string') record.method = r.method;
  if (typeof r.reason === 'string') record.reason = r.reason as AuditReason;
  if (typeof r.instance === 'string') record.instance = r.instance;
  if (typeof r.upstream === 'string') record.upstream = r.upstream;
  return record;
}
