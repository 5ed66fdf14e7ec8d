import type { AuditRecord, AuditSink } from '../../src/audit/record.js';

/** A trail that fails while `broken` (a full disk, a lost collector); its probe fails too, until mended. */
export class BreakableSink implements AuditSink {
  broken = false;
  readonly records: AuditRecord[] = [];
  record(entry: AuditRecord): void {
    if (this.broken) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    this.records.push(entry);
  }
  probe(): void {
    if (this.broken) throw new Error('database or disk is full');
  }
}
