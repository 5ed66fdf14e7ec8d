import type { AuditReason, AuditStatus } from '../../audit/record.js';
import { ServerShutdown } from '../calls-in-flight.js';

/**
 * One `prompts/get`, `resources/read`, `completion/complete` or
 * `resources/subscribe` while it runs: what it named, how it is ending (the
 * handler runner fills that in), and a stop the server's shutdown can pull.
 */
export class TrackedRequest {
  /** What the request named (prompt name, resource URI, completion reference), for the audit trail. */
  target = '';
  args: unknown = {};
  status: AuditStatus = 'ok';
  /** Why it did not run as asked, when its status alone does not say (the audit record's `reason`). */
  reason?: AuditReason;
  correlationId: string | null = null;
  private stopReason?: unknown;
  private stopRun?: (reason: unknown) => void;

  /** Stops the request (the server shuts down): the runner answers it with an error saying so. */
  abort(reason?: unknown): void {
    if (this.stopReason !== undefined) return;
    this.stopReason = reason ?? new ServerShutdown();
    this.stopRun?.(this.stopReason);
  }

  /** The runner's own abort: pulled now if the request was stopped before it started. */
  bind(stop: (reason: unknown) => void): void {
    this.stopRun = stop;
    if (this.stopReason !== undefined) stop(this.stopReason);
  }
}
