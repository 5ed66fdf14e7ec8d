import type { AuditSink } from '../audit/record.js';
import type { Logger } from '../runtime/logger.js';

/** What the facade does when a record cannot be written: the server's `server.audit.onFailure`. */
export type FacadeAuditFailurePolicy = 'refuse' | 'warn';

/**
 * The audit trail's health as the facade asks it: the server's own (a ToolServer's `auditGuard`
 * fits this shape), so a trail that failed a tool call's record stops sign-ins too, and the
 * reverse. Under 'refuse', `admit` throws while the trail cannot be written; `failed` is told of
 * every lost record.
 */
export interface AuditHealth {
  readonly policy: FacadeAuditFailurePolicy;
  admit(): void;
  failed(err: unknown, what: string, requestId: unknown): void;
}

/** While the trail is down, how often a request may try it again (as the server does): at most once a second. */
const PROBE_INTERVAL_MS = 1_000;

/**
 * The facade's own health when it is given a trail without the server's guard (a program
 * mounting the facade by hand): the same policy, kept for the facade alone. Under 'refuse' a
 * lost record makes later sign-ins refused until the sink's probe passes (tried at most once a
 * second; a sink without `probe`: until restart); under 'warn' one warning, then a count.
 */
export class OwnAuditHealth implements AuditHealth {
  lost = 0;
  private unavailable = false;
  private warned = false;
  private nextProbeAt = 0;

  constructor(
    private readonly sink: AuditSink,
    readonly policy: FacadeAuditFailurePolicy,
    private readonly logger: Logger | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  admit(): void {
    if (!this.unavailable) return;
    if (!this.sink.probe || this.now() < this.nextProbeAt) throw new Error('audit trail unavailable');
    try {
      this.sink.probe();
    } catch {
      this.nextProbeAt = this.now() + PROBE_INTERVAL_MS;
      throw new Error('audit trail unavailable');
    }
    this.unavailable = false;
    this.logger?.warn({ lost: this.lost }, 'auth-proxy: audit trail writable again; serving sign-ins');
  }

  failed(err: unknown, what: string): void {
    this.lost++;
    const error = (err as Error)?.message?.slice(0, 200) ?? String(err);
    if (this.policy === 'refuse') {
      if (this.unavailable) return;
      this.unavailable = true;
      this.nextProbeAt = this.now() + PROBE_INTERVAL_MS;
      this.logger?.error(
        { error, request: what },
        'auth-proxy: an audit record could not be written; sign-ins are refused until it can (server.audit.onFailure)',
      );
      return;
    }
    if (this.warned) return;
    this.warned = true;
    this.logger?.warn({ error, request: what }, 'auth-proxy: an audit record could not be written; serving on without records (onFailure: warn)');
  }
}
