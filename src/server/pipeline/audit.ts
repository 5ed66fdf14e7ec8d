import { auditArgumentsJson } from '../../audit/arguments.js';
import type { AuditRecord, AuditSink } from '../../audit/record.js';
import { RpcError } from '../../jsonrpc/errors.js';
import { isAnonymous } from '../../policy/auth/caller.js';
import { callerOf, type Exchange } from '../exchange.js';
import type { Logger } from '../logger.js';
import { AuditGuard } from './audit-guard.js';
import type { CallOutcome, Stage, ToolCall } from './call.js';

/** Client-chosen strings are capped so one hostile request cannot bloat the trail. */
const MAX_NAME_CHARS = 256;

/**
 * The outermost stage: every call, however it ends (allowed, refused, failed,
 * timed out, cancelled, or answered with a protocol error), leaves exactly one
 * audit record. The record is written before this stage returns, which is
 * before the reply is written, so an answered call is never missing from the
 * trail (issue "Audit": a SIGKILL after the answer must not lose the record).
 * A failing sink follows the guard's policy (see AuditFailurePolicy): under
 * 'refuse' later calls are refused before they run, under 'warn' the loss is counted.
 */
export function auditStage(sink: AuditSink, logger: Logger, guard: AuditGuard = new AuditGuard(sink, 'refuse', logger)): Stage {
  const report = (err: unknown, what: string, requestId: unknown) => guard.failed(err, what, requestId);
  // Returns a promise only for an asynchronous sink: a synchronous one costs no extra step.
  const write = (call: ToolCall, outcome: CallOutcome, errorCode: number | null): Promise<void> | undefined => {
    try {
      const done = sink.record(auditRecordOf(call, outcome, errorCode));
      return done ? done.catch((err: unknown) => report(err, call.requestedName, call.info.requestId)) : undefined;
    } catch (err) {
      report(err, call.requestedName, call.info.requestId);
      return undefined;
    }
  };
  return async (call, next) => {
    // Refused here, the call never ran: there is nothing to record (the guard counts it).
    guard.admit();
    let outcome: CallOutcome;
    try {
      outcome = await next();
    } catch (err) {
      const rpc = err instanceof RpcError;
      // A policy refusal answered with a protocol error (403 insufficient_scope) stays 'refused'.
      if (call.status !== 'refused') call.status = rpc ? 'protocol_error' : 'internal_error';
      await write(call, undefined, rpc ? err.code : null);
      throw err;
    }
    const written = write(call, outcome, null);
    if (written) await written;
    return outcome;
  };
}

/** The record of one finished call. */
export function auditRecordOf(call: ToolCall, outcome: CallOutcome, errorCode: number | null): AuditRecord {
  // `call.tool` is unset when resolving failed (unknown tool, bad params).
  const tool = call.tool as ToolCall['tool'] | undefined;
  return {
    time: isoNow(),
    era: call.info.era,
    protocolVersion: call.info.protocolVersion,
    ...auditCallerOf(call.exchange),
    tool: capAuditName(call.requestedName),
    argumentsJson: auditArgumentsJson(call.args, tool?.inputSchema),
    status: call.status,
    isError: outcome !== undefined && 'isError' in outcome && outcome.isError === true,
    durationMs: Math.round((performance.now() - call.startedAt) * 1000) / 1000,
    correlationId: call.correlationId ?? null,
    requestId: call.info.requestId ?? null,
    clientName: typeof call.info.clientInfo?.name === 'string' ? capAuditName(call.info.clientInfo.name) : null,
    errorCode,
  };
}

/** Scopes a record keeps at most (a token may carry very many; the trail is bounded). */
const MAX_AUDIT_SCOPES = 64;

/**
 * What an audit record keeps of the caller: its id (`principal`), client id,
 * scopes and tenant, each when known; the claims never (they may carry
 * personal data, and the trail is for who did what).
 */
export function auditCallerOf(exchange: Exchange): Pick<AuditRecord, 'principal' | 'clientId' | 'scopes' | 'tenant'> {
  const caller = callerOf(exchange);
  if (isAnonymous(caller)) return { principal: null };
  const { clientId, scopes, tenant } = caller;
  return {
    principal: caller.id,
    ...(clientId !== undefined ? { clientId: capAuditName(clientId) } : {}),
    ...(scopes !== undefined ? { scopes: scopes.slice(0, MAX_AUDIT_SCOPES).map(capAuditName) } : {}),
    ...(tenant !== undefined ? { tenant: capAuditName(tenant) } : {}),
  };
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

export function capAuditName(text: string): string {
  return text.length > MAX_NAME_CHARS ? `${text.slice(0, MAX_NAME_CHARS)}…` : text;
}
