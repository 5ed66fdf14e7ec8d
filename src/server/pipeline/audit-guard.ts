import type { AuditSink } from '../../audit/record.js';
import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import type { Logger } from '../../runtime/logger.js';
import { recordedText, recordedValue } from '../../jsonrpc/recorded.js';

/**
 * What a server does when an audit record cannot be written.
 * - 'refuse' (the default): fail closed. The request whose record failed has already run and
 *   gets its answer (hiding it would invite a repeat of its effects), and it is counted as lost;
 *   from then on every audited request is refused with a JSON-RPC -32603 (Internal error: the
 *   tools spec's "Error Handling" makes server errors protocol errors, and isError results are
 *   for the tool's own failures, which the model may correct) without running, until the sink's probe
 *   (tried at most once a second) says the trail can be written again (a sink without `probe`: until restart).
 * - 'warn': serve on. One warning when the first record is lost, then only a count
 *   (`lost`), which `toolwright serve` reports at shutdown.
 * Either way the log gets one line per change of state, never one (or a stack trace) per call.
 */
export type AuditFailurePolicy = 'refuse' | 'warn';

/** While the trail is down, how often a request may try it again (a probe may wait for SQLite's lock): at most once a second. */
const PROBE_INTERVAL_MS = 1_000;

export const AUDIT_UNAVAILABLE =
  "The server's audit trail cannot be written, so it refuses requests until it can record them again; the operator can see why in the server's log.";

/** One server's audit health: shared by the tools/call audit step and the other audited requests. */
export class AuditGuard {
  /** Records that could not be written. */
  lost = 0;
  /** Requests refused because the trail was unavailable ('refuse'). */
  refused = 0;
  private unavailable = false;
  private warned = false;
  private nextProbeAt = 0;

  constructor(
    private readonly sink: AuditSink,
    readonly policy: AuditFailurePolicy,
    private readonly logger: Logger,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Before an audited request runs: under 'refuse', throws -32603 while the trail is unavailable. */
  admit(): void {
    if (!this.unavailable) return;
    if (!this.sink.probe || this.now() < this.nextProbeAt || !this.probed()) {
      this.refused++;
      throw new RpcError(ErrorCode.InternalError, AUDIT_UNAVAILABLE);
    }
    this.unavailable = false;
    this.logger.warn({ lost: this.lost, refused: this.refused }, 'audit trail: writable again; serving requests');
  }

  /** The operator was already told the trail cannot be written (at start-up): the first loss needs no warning of its own. */
  markWarned(): void {
    this.warned = true;
  }

  private probed(): boolean {
    try {
      this.sink.probe!();
      return true;
    } catch {
      this.nextProbeAt = this.now() + PROBE_INTERVAL_MS;
      return false;
    }
  }

  /** A record could not be written. */
  failed(err: unknown, what: string, requestId: unknown): void {
    this.lost++;
    const error = describe(err);
    if (this.policy === 'refuse') {
      if (this.unavailable) return;
      this.unavailable = true;
      this.nextProbeAt = this.now() + PROBE_INTERVAL_MS;
      this.logger.error(
        { error, request: recordedText(what), requestId: recordedValue(requestId) },
        'audit trail unavailable: a record could not be written; requests are refused until it can be written again (server.audit.onFailure)',
      );
      return;
    }
    if (this.warned) return;
    this.warned = true;
    this.logger.warn(
      { error, request: recordedText(what), requestId: recordedValue(requestId) },
      'audit trail: a record could not be written; serving on without records (server.audit.onFailure: warn), lost records are counted',
    );
  }
}

/** The error's message and code, without its stack: the log says what failed, once. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  return code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
}
