import type { AuditRecord, AuditSink } from './record.js';

/**
 * Sends each record to every sink. One failing sink does not keep the record
 * from the others; the failures are reported together afterwards (the audit
 * stage logs them).
 */
export class FanoutAuditSink implements AuditSink {
  readonly sinks: readonly AuditSink[];

  constructor(sinks: readonly AuditSink[]) {
    this.sinks = [...sinks];
  }

  record(entry: AuditRecord): void | Promise<void> {
    const errors: unknown[] = [];
    const pending: Promise<void>[] = [];
    for (const sink of this.sinks) {
      try {
        const done = sink.record(entry);
        if (done) pending.push(Promise.resolve(done).catch((err: unknown) => void errors.push(err)));
      } catch (err) {
        errors.push(err);
      }
    }
    // Synchronous sinks stay synchronous: no promise (and no extra tick) unless one is asynchronous.
    if (pending.length === 0) return throwIfAny(errors);
    return Promise.all(pending).then(() => throwIfAny(errors));
  }

  flush(): void {
    for (const sink of this.sinks) {
      try {
        sink.flush?.();
      } catch {
        // A failed write fails that sink's pending records, which the audit stage reports.
      }
    }
  }

  /** Every sink's probe: the trail is writable only if each of its sinks is. */
  probe(): void {
    for (const sink of this.sinks) sink.probe?.();
  }

  /** Every sink's ready: the trail is ready when each of its sinks is. */
  async ready(): Promise<void> {
    await Promise.all(this.sinks.map((sink) => sink.ready?.()));
  }

  close(): void {
    for (const sink of this.sinks) {
      try {
        sink.close?.();
      } catch {
        // Closing is best effort: the others still get closed.
      }
    }
  }
}

function throwIfAny(errors: unknown[]): void {
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} audit sinks failed`);
}
