import type { AuditSink } from '../../audit/record.js';

export type { TrackedRequest } from './tracked.js';
import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../../jsonrpc/types.js';
import type { Era } from '../../protocol/versions.js';
import type { CallsInFlight } from '../calls-in-flight.js';
import type { Logger } from '../../runtime/logger.js';
import type { Exchange } from '../exchange.js';
import { InsufficientScopeError } from '../pipeline/authorize.js';
import { RateLimitedError } from './rate-limit.js';
import { auditRecordOf, auditWriter } from '../pipeline/audit.js';
import { AuditGuard } from '../pipeline/audit-guard.js';
import type { MethodHandler, MethodResult, RequestFacts, Route } from './method-table.js';
import { callInfoOf, Operation } from '../pipeline/operation.js';

/** Where the requests that are not tool calls are counted and recorded (the server's own, shared with tools/call). */
export interface RequestTracking {
  /** The server's requests in flight: a graceful shutdown waits for them, then stops them. */
  calls?: CallsInFlight;
  /** The audit trail (absent: auditing is off). */
  auditSink?: AuditSink;
  /** What happens when a record cannot be written (shared with the tools/call audit stage). */
  auditGuard?: AuditGuard;
  /** The server instance its records name (ToolServer's `instanceId`). */
  instance?: string;
  logger: Logger;
}

/**
 * Serves one request the way the call pipeline serves a tool call: refused
 * once the server shuts down, counted among the requests a graceful
 * shutdown waits for (and stops after its grace), and recorded in the audit
 * trail however it ends (principal, method and target, redacted arguments,
 * status, duration, correlation id) before the reply is written. A failing
 * sink follows the server's AuditFailurePolicy (see AuditGuard). The
 * dispatcher wraps every route registered `{ tracked: true }` with it, outside
 * the user's middleware (so a refusal by a middleware is recorded too).
 */
export function trackedRequest(method: string, era: Era, tracking: RequestTracking, handler: MethodHandler, route: Route): MethodHandler {
  const { stream = false, names = namedByDefault } = route;
  const { auditSink } = tracking;
  // A stream (subscriptions/listen) is ended by server.close(), not waited for by a drain.
  const calls = stream ? undefined : tracking.calls;
  const shuttingDown = () => tracking.calls?.closed === true;
  const guard = auditSink && (tracking.auditGuard ?? new AuditGuard(auditSink, 'refuse', tracking.logger));
  const write = auditSink && auditWriter(auditSink, guard!);
  return async (request: JsonRpcRequest, exchange: Exchange, facts: RequestFacts): Promise<MethodResult | undefined> => {
    // Refused here (the audit trail is down), the request never ran: the guard counts it.
    guard?.admit();
    const tracked = new Operation(request.params ?? {}, callInfoOf(request, era, facts), exchange);
    // What the request names, before anything runs: a refusal by a middleware is recorded with it too (the handler may refine it).
    if (request.params) names(tracked, request.params);
    let errorCode: number | null = null;
    calls?.add(tracked);
    try {
      if (shuttingDown()) {
        tracked.status = 'refused';
        tracked.reason = 'shutting_down';
        throw new RpcError(ErrorCode.InternalError, 'The server is shutting down; retry in a few seconds (another instance may answer).');
      }
      const result = await handler(request, exchange, facts, tracked);
      if (result === undefined && tracked.status === 'ok') tracked.status = 'cancelled';
      return result;
    } catch (err) {
      if (err instanceof InsufficientScopeError || err instanceof RateLimitedError) {
        tracked.status = 'refused';
        tracked.reason = err instanceof RateLimitedError ? 'rate_limit' : 'scope';
      } else if (tracked.status === 'ok')
        tracked.status = err instanceof RpcError && err.code !== ErrorCode.InternalError ? 'protocol_error' : 'internal_error';
      errorCode = err instanceof RpcError ? err.code : ErrorCode.InternalError;
      throw err;
    } finally {
      if (write) {
        const record = auditRecordOf(tracked, errorCode !== null, errorCode, tracking.instance, method);
        const written = write(record, `${method} ${tracked.target}`);
        // A stream's end is not held for the commit: its record is in the sink's queue before the
        // closing answer goes, and a shutdown ends streams just before it closes the sink (which
        // commits what it holds), so the answer is not lost to a socket the shutdown closes meanwhile.
        if (!stream) await written;
      }
      // Counted until its record is written: a drain that resolves finds the trail complete.
      calls?.remove(tracked);
    }
  };
}

/** What most requests name: their `name`, `uri`, `taskId` or `level`, with their `arguments`. */
function namedByDefault(op: Operation, params: Record<string, unknown>): void {
  const target = firstString(params.name, params.uri, params.taskId, params.level);
  if (target !== undefined) op.target = target;
  if (params.arguments !== undefined) op.args = params.arguments as Record<string, unknown>;
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === 'string') return value;
  return undefined;
}
