import type { AuditRecord, AuditSink } from './record.js';

/** The most records a MemoryAuditSink keeps: a long test run must not grow without bound. */
const MAX_RECORDS = 10_000;

/** Keeps the newest records in memory (at most 10,000), for tests and the in-memory pair: nothing touches the disk. */
export class MemoryAuditSink implements AuditSink {
  readonly records: AuditRecord[] = [];

  record(entry: AuditRecord): void {
    this.records.push(entry);
    if (this.records.length > MAX_RECORDS) this.records.splice(0, this.records.length - MAX_RECORDS);
  }

  probe(): void {}
}
