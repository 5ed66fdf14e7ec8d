import type { AuditRecord, AuditReason, AuditStatus } from './record.js';
import type { StoredAuditRecord } from './reader.js';

/**
 * One audit record as a JSON-lines trail keeps it: the record's fields, with the arguments (already
 * redacted JSON text) spliced in as an object under `arguments`, so `jq` reads them as data.
 *
 * Written member by member rather than by JSON.stringify of a copied object: the same text (each
 * value goes through JSON.stringify, and an undefined one is left out as there), in a third of the
 * CPU (0.5 against 1.6 µs here), which is most of a record's cost in the default trail (issue 33:
 * at or under 2 µs a record). test/audit/jsonl-line.test.ts holds the two equal.
 */
export function auditJsonLine(e: AuditRecord): string {
  return `{${member('time', e.time)}${sharedMembers(e)}${member('durationMs', e.durationMs)}${member('correlationId', e.correlationId)}${member('requestId', e.requestId)}${member('clientName', e.clientName)}${member('errorCode', e.errorCode)}${member('reason', e.reason)}${member('instance', e.instance)}${member('upstream', e.upstream)}"arguments":${e.argumentsJson}}\n`;
}

/** `"key":value,` as JSON.stringify writes an object's member, or nothing where it leaves the member out. */
function member(key: Exclude<keyof AuditRecord, 'argumentsJson'>, value: unknown): string {
  if (value === undefined) return '';
  const json = JSON.stringify(value);
  return json === undefined ? '' : `"${key}":${json},`;
}

type Shared = Pick<AuditRecord, 'era' | 'protocolVersion' | 'principal' | 'clientId' | 'tenant' | 'method' | 'tool' | 'status' | 'isError'>;

/** The members from `era` to `isError` of the last record written, and their text. */
let lastShared: Shared | undefined;
let lastSharedText = '';

/**
 * The members from `era` to `isError`: under load, record after record comes from the same client
 * calling the same tool, so the text made for the last record is used again when they are the same
 * (compared by value; a record with scopes, an array a caller could change, or with an object where
 * the types say text, is always written anew).
 */
function sharedMembers(e: AuditRecord): string {
  const last = lastShared;
  if (
    last !== undefined &&
    e.scopes === undefined &&
    e.tool === last.tool &&
    e.status === last.status &&
    e.isError === last.isError &&
    e.principal === last.principal &&
    e.era === last.era &&
    e.protocolVersion === last.protocolVersion &&
    e.clientId === last.clientId &&
    e.tenant === last.tenant &&
    e.method === last.method
  )
    return lastSharedText;
  const text = `${member('era', e.era)}${member('protocolVersion', e.protocolVersion)}${member('principal', e.principal)}${member('clientId', e.clientId)}${member('scopes', e.scopes)}${member('tenant', e.tenant)}${member('method', e.method)}${member('tool', e.tool)}${member('status', e.status)}${member('isError', e.isError)}`;
  const { era, protocolVersion, principal, clientId, tenant, method, tool, status, isError } = e;
  const kept = { era, protocolVersion, principal, clientId, tenant, method, tool, status, isError };
  // Kept only when every member is a primitive, as the types say: an object (from plain JavaScript) could change in place.
  if (e.scopes === undefined && Object.values(kept).every((value) => value === null || typeof value !== 'object')) {
    lastShared = kept;
    lastSharedText = text;
  }
  return text;
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
