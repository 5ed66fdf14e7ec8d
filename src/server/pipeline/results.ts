import { nodeCrypto } from '../../runtime/lazy-crypto.js';
import { ServerShutdown } from '../calls-in-flight.js';
import type { Logger } from '../../runtime/logger.js';
import type { ToolResult } from '../tool.js';
import type { Operation } from './operation.js';
import type { AuditReason } from '../../audit/record.js';
import { recordedText } from '../../jsonrpc/recorded.js';

/** An `isError` result the model can read and act on. */
export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A policy stage said no (rate limit, overload, size, approval): the call is marked refused, and why. */
export function refuse(call: Operation, reason: AuditReason, text: string): ToolResult {
  call.status = 'refused';
  call.reason = reason;
  return errorResult(text);
}

/**
 * Marks a refusal the client may retry after a known delay (a rate limit). A
 * symbol-keyed member: never serialized, read by the dispatcher into the
 * Reply, which the HTTP transport sends as a Retry-After header.
 */
const RETRY_AFTER_MS = Symbol('toolwright.retryAfterMs');

export function withRetryAfter(result: ToolResult, retryAfterMs: number): ToolResult {
  (result as ToolResult & { [RETRY_AFTER_MS]?: number })[RETRY_AFTER_MS] = retryAfterMs;
  return result;
}

/** The retry delay a refusal carries, if any. */
export function retryAfterMsOf(outcome: object): number | undefined {
  return (outcome as { [RETRY_AFTER_MS]?: number })[RETRY_AFTER_MS];
}

/**
 * The outcome of a call aborted before or while it ran (its timeout aside). Cancelled by its
 * client or lost with its connection: no answer (cancellation.mdx). Stopped
 * because the server shuts down: the client still waits, so it gets an
 * isError result that says so (the audit trail records it as cancelled, with
 * isError set).
 */
export function abortedOutcome(call: Operation): ToolResult | undefined {
  call.status = 'cancelled';
  if (!(call.abortReason instanceof ServerShutdown)) return undefined;
  call.reason = 'shutting_down';
  return errorResult(
    `Tool ${call.target} was stopped because the server is shutting down; it may have done part of its work. Retry in a few seconds (another instance may answer).`,
  );
}

/** A server-side bug: the client sees a correlation id, the log sees everything. */
export function internalFailure(call: Operation, detail: unknown, logger: Logger): ToolResult {
  const correlationId = nodeCrypto().randomUUID();
  call.status = 'internal_error';
  call.correlationId = correlationId;
  logger.error(
    {
      correlationId,
      tool: recordedText(call.target),
      err: detail instanceof Error ? detail : undefined,
      detail: detail instanceof Error ? undefined : detail,
    },
    'tool call failed',
  );
  return errorResult(
    `Tool ${call.target} failed because of an internal error (correlation id ${correlationId}). The server log has the details; retrying may not help.`,
  );
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}
