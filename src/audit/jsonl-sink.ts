import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { auditJsonLine } from './jsonl-line.js';
import type { AuditRecord, AuditSink } from './record.js';

/**
 * Appends one JSON object per line. The write is synchronous (a write(2) on
 * an O_APPEND descriptor), so the line is in the operating system's hands
 * before the reply goes out and survives a crash or SIGKILL of this process.
 * Whole-line writes on O_APPEND also keep lines from several processes apart.
 */
export class JsonlAuditSink implements AuditSink {
  private fd?: number;

  constructor(readonly file: string) {}

  record(entry: AuditRecord): void {
    const line = Buffer.from(auditJsonLine(entry));
    const fd = this.descriptor();
    let written = 0;
    while (written < line.length) written += writeSync(fd, line, written);
  }

  /** Opens the file now (creating it and its folder), throwing what the first record would. */
  probe(): void {
    this.descriptor();
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private descriptor(): number {
    if (this.fd === undefined) {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      this.fd = openSync(this.file, 'a', 0o600);
    }
    return this.fd;
  }
}
