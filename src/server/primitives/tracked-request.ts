import type { AuditSink } from '../../audit/record.js';

export type { TrackedRequest } from './tracked.js';
import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../../jsonrpc/types.js';
import type { Era } from '../../protocol/versions.js';
import type { CallsInFlight } from '../calls-in-flight.js';
import type { Logger } from '../../runtime/logger.js';
import type { Exchange } from '../exchange.js';
import { auditStep } from '../pipeline/audit.js';
import { AuditGuard } from '../pipeline/audit-guard.js';
import type { MethodHandler, MethodResult, RequestFacts, Route } from './method-table.js';
import { callInfoOf, Operation, thenCleanUp } from '../pipeline/operation.js';

/** Where the requests that are not tool calls are counted and recorded (the server's own, shared with tools/call). */
export interface RequestTracking {
  /** The server's requests in flight: a graceful shutdown waits for them, then stops them. */
  calls?: CallsInFlight;
  /** The audit trail (absent: auditing is off). */
  auditSink?: AuditSink;
  /** What happens when a record cannot be written (shared with the tools/call audit step). */
  auditGuard?: AuditGuard;
  /** The server instance its records name (ToolServer's `instanceId`). */
  instance?: string;
  logger: Logger;
}

/**
 * Serves one request the way the call pipeline serves a tool call: refused
 * once the server shuts down, counted among the requests a graceful
 * shutdown waits for (and stops after its grace), and recorded in the audit
 * trail by the one audit wrapper (auditStep) however it ends. The dispatcher
 * wraps every route registered `{ tracked: true }` with it, outside the
 * user's middleware (so a refusal by a middleware is recorded too).
 */
export function trackedRequest(method: string, era: Era, tracking: RequestTracking, handler: MethodHandler, route: Route): MethodHandler {
  const { stream = false, names = namedByDefault } = route;
  const { auditSink, calls } = tracking;
  // A stream (subscriptions/listen) is ended by server.close(), not waited for by a drain.
  const counted = stream ? undefined : calls;
  const guard = auditSink && (tracking.auditGuard ?? new AuditGuard(auditSink, 'refuse', tracking.logger));
  const audit = guard && auditStep<MethodResult | undefined>(auditSink, guard, tracking.instance, method, stream);
  return (request: JsonRpcRequest, exchange: Exchange, facts: RequestFacts) => {
    const op = new Operation(request.params ?? {}, callInfoOf(request, era, facts), exchange);
    // What the request names, before anything runs: a refusal by a middleware is recorded with it too (the handler may refine it).
    if (request.params) names(op, request.params);
    // Not async: the audit step awaits what it answers and catches its throw, as it would a rejection.
    const run = () => {
      if (calls?.closed === true) {
        op.status = 'refused';
        op.reason = 'shutting_down';
        throw new RpcError(ErrorCode.InternalError, 'The server is shutting down; retry in a few seconds (another instance may answer).');
      }
      return handler(request, exchange, facts, op);
    };
    counted?.add(op);
    // Counted until its record is written: a drain that resolves finds the trail complete.
    return thenCleanUp(audit ? () => audit(op, run) : async () => run(), () => counted?.remove(op));
  };
}

/** What most requests name: their `name`, `uri`, `taskId` or `level`, with their `arguments`. */
function namedByDefault(op: Operation, params: Record<string, unknown>): void {
  const target = firstString(params.name, params.uri, params.taskId, params.level);
  if (target !== undefined) op.target = target;
  if (params.arguments !== undefined) op.args = params.arguments as Record<string, unknown>;
}

// Four parameters, not a rest list: no array made for every request.
function firstString(a: unknown, b: unknown, c: unknown, d: unknown): string | undefined {
  if (typeof a === 'string') return a;
  if (typeof b === 'string') return b;
  if (typeof c === 'string') return c;
  return typeof d === 'string' ? d : undefined;
}
