import { auditArgumentsJson } from '../../audit/arguments.js';
import type { AuditReason, AuditRecord, AuditSink } from '../../audit/record.js';
import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import { RateLimitedError } from '../primitives/rate-limit.js';
import { InsufficientScopeError } from './authorize.js';
import { recordedId, recordedText } from '../../jsonrpc/recorded.js';
import { isAnonymous, type Caller } from '../../policy/auth/caller.js';
import { callerOf, type Exchange } from '../exchange.js';
import type { AuditGuard } from './audit-guard.js';
import { upstreamOf, type Operation } from './operation.js';

/**
 * The one audit wrapper: every request it wraps, however it ends (allowed,
 * refused, failed, timed out, cancelled, or answered with a protocol error),
 * leaves exactly one record, made by auditRecordOf and written before the
 * wrapper returns, which is before the reply is written, so an answered
 * request is never missing from the trail (issue "Audit": a SIGKILL after
 * the answer must not lose the record). It is the call pipeline's outermost
 * stage (`method` absent: each run of a tool call, so a task's record is its
 * outcome) and wraps every other tracked route (tracked-request.ts). A
 * `stream`'s record is not awaited (see trackedRequest). A failing sink
 * follows the guard's policy (AuditFailurePolicy): under 'refuse' later
 * requests are refused before they run, under 'warn' the loss is counted.
 */
export function auditStep<R>(
  sink: AuditSink,
  guard: AuditGuard,
  instance?: string,
  method?: string,
  stream = false,
): (op: Operation, next: () => R | Promise<R>) => Promise<R> {
  const write = auditWriter(sink, guard);
  return async (op, next) => {
    // Refused here, the request never ran: there is nothing to record (the guard counts it).
    guard.admit();
    let errorCode: number | null = null;
    let isError = false;
    try {
      const result = await next();
      if (method === undefined) isError = (result as { isError?: unknown } | undefined)?.isError === true;
      else if (result === undefined && op.status === 'ok') op.status = 'cancelled';
      return result;
    } catch (err) {
      const rpc = err instanceof RpcError;
      if (method === undefined) {
        // A tool call's refusal answered with a protocol error (403 insufficient_scope) stays 'refused'.
        if (op.status !== 'refused') op.status = rpc ? 'protocol_error' : 'internal_error';
        errorCode = rpc ? err.code : null;
      } else {
        if (err instanceof InsufficientScopeError || err instanceof RateLimitedError) {
          op.status = 'refused';
          op.reason = err instanceof RateLimitedError ? 'rate_limit' : 'scope';
        } else if (op.status === 'ok') op.status = rpc && err.code !== ErrorCode.InternalError ? 'protocol_error' : 'internal_error';
        errorCode = rpc ? err.code : ErrorCode.InternalError;
        isError = true;
      }
      throw err;
    } finally {
      const written = write(auditRecordOf(op, isError, errorCode, instance, method), op.target, method);
      if (written && !stream) await written;
    }
  };
}

/**
 * Writes records to `sink` under `guard`'s failure policy; returns a promise
 * only for an asynchronous sink (a synchronous one costs no extra step).
 * The one writer of every audited request, tool call or not.
 */
export function auditWriter(sink: AuditSink, guard: AuditGuard): (record: AuditRecord, target: string, method?: string) => Promise<void> | undefined {
  // What the log names when a record is lost ("prompts/get greet"; a tool call: its tool), made only then.
  const what = (target: string, method?: string) => (method === undefined ? target : `${method} ${target}`);
  return (record, target, method) => {
    try {
      const done = sink.record(record);
      return done ? done.catch((err: unknown) => guard.failed(err, what(target, method), record.requestId)) : undefined;
    } catch (err) {
      guard.failed(err, what(target, method), record.requestId);
      return undefined;
    }
  };
}

/** What every audit record is made of, whatever the method (the one place a record is built). */
export interface AuditedRequest {
  era: AuditRecord['era'];
  protocolVersion: string;
  /** Whose request it was: the record keeps the caller's id, client id, scopes and tenant (addCallerDetails). */
  exchange: Exchange;
  /** Absent: tools/call. */
  method?: string;
  /** What the request named: the tool, the prompt, the URI, the completion reference. */
  target: string;
  args: unknown;
  /** The tool's input schema, for redacting the arguments it marks secret. */
  schema?: Parameters<typeof auditArgumentsJson>[1];
  status: AuditRecord['status'];
  isError: boolean;
  startedAt: number;
  correlationId: string | null | undefined;
  requestId: AuditRecord['requestId'] | undefined;
  clientName: unknown;
  errorCode: number | null;
  /** Why it did not run as asked; absent: what the status implies (`timeout`, `validation`, `cancelled`), or nothing. */
  reason?: AuditReason;
  /** The server instance that answered (ToolServer's `instanceId`). */
  instance?: string;
  /** The gateway upstream that served it (its definition's `upstream`). */
  upstream?: string;
}

/** The reason a status implies when no stage named one. */
const REASON_OF_STATUS: Partial<Record<AuditRecord['status'], AuditReason>> = {
  timeout: 'timeout',
  invalid_arguments: 'validation',
  cancelled: 'cancelled',
};

/**
 * The record of one finished request: every client-chosen string (the name or URI, the request id,
 * clientInfo's name, the caller's fields) bounded by recordedText, so one hostile request cannot
 * bloat the trail; arguments redacted and capped.
 */
export function auditRecord(request: AuditedRequest): AuditRecord {
  const tool = recordedText(request.target);
  const argumentsJson = auditArgumentsJson(request.args, request.schema);
  const durationMs = Math.round((performance.now() - request.startedAt) * 1000) / 1000;
  const correlationId = request.correlationId ?? null;
  const requestId = recordedId(request.requestId ?? null);
  const clientName = typeof request.clientName === 'string' ? recordedText(request.clientName) : null;
  const { era, status, isError, errorCode, instance, method } = request;
  const protocolVersion = recordedText(request.protocolVersion);
  const caller = callerOf(request.exchange);
  const reason = request.reason ?? REASON_OF_STATUS[status];
  const time = isoNow();

  const record: AuditRecord = {
    time,
    era,
    protocolVersion,
    principal: isAnonymous(caller) ? null : recordedText(caller.id),
    tool,
    argumentsJson,
    status,
    isError,
    durationMs,
    correlationId,
    requestId,
    clientName,
    errorCode,
  };
  addCallerDetails(record, caller);
  // Absent for a tool call (records written before other requests were audited have none); a
  // JSON-lines trail writes the fields in one fixed order whatever the object's (jsonl-line.ts).
  if (method !== undefined) record.method = method;
  // Last, and only when known: a record without them reads as one written before they existed.
  if (reason !== undefined) record.reason = reason;
  if (instance !== undefined) record.instance = instance;
  if (request.upstream !== undefined) record.upstream = recordedText(request.upstream);
  return record;
}

/** The record of one finished request: `method` absent for a tool call (whose record has none). */
export function auditRecordOf(call: Operation, isError: boolean, errorCode: number | null, instance?: string, method?: string): AuditRecord {
  // `call.tool` is unset when resolving failed (unknown tool, bad params), and for other methods.
  const tool = call.tool as Operation['tool'] | undefined;
  return auditRecord({
    era: call.info.era,
    protocolVersion: call.info.protocolVersion,
    exchange: call.exchange,
    method,
    target: call.target,
    args: call.args,
    schema: tool?.inputSchema,
    status: call.status,
    isError,
    startedAt: call.startedAt,
    correlationId: call.correlationId,
    requestId: call.info.requestId,
    clientName: call.info.clientInfo?.name,
    errorCode,
    reason: call.reason,
    instance,
    upstream: upstreamOf(call),
  });
}

/** Scopes a record keeps at most (a token may carry very many; the trail is bounded). */
const MAX_AUDIT_SCOPES = 64;

/**
 * What an audit record keeps of the caller beyond its id (`principal`, in the record's literal):
 * its client id, scopes and tenant, each when known; the claims never (they may carry personal
 * data, and the trail is for who did what). Set after the literal, so the usual record
 * (anonymous, or an id alone) is one shape built at once (a spread in the literal defined every
 * later field one by one: ~1% of a call's CPU).
 */
function addCallerDetails(record: AuditRecord, caller: Caller): void {
  if (isAnonymous(caller)) return;
  const { clientId, scopes, tenant } = caller;
  if (clientId !== undefined) record.clientId = recordedText(clientId);
  if (scopes !== undefined) record.scopes = scopes.slice(0, MAX_AUDIT_SCOPES).map((scope) => recordedText(scope));
  if (tenant !== undefined) record.tenant = recordedText(tenant);
}

let lastMs = 0;
let lastIso = '';

/** The time in ISO 8601, formatted once per millisecond: under load many records share it (formatting costs ~1.5 µs). */
export function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}
