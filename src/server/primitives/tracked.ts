import type { AuditReason, AuditStatus } from '../../audit/record.js';

/**
 * What the handler of a route registered `{ tracked: true }` is given: the
 * request as the audit trail will record it (what it named, how it ended)
 * and a stop a shutdown pulls. The server's own routes get the request's
 * Operation, which is one.
 */
export interface TrackedRequest {
  /** What the request named (prompt name, resource URI, completion reference), for the audit trail. */
  target: string;
  args: Record<string, unknown>;
  status: AuditStatus;
  /** Why it did not run as asked, when its status alone does not say (the audit record's `reason`). */
  reason?: AuditReason;
  correlationId?: string | null;
  /** Stops the request (the server shuts down). */
  abort(reason?: unknown): void;
}
