import { join } from 'node:path';
import { MemoryAuditSink } from './memory-sink.js';
import type { AuditRecord, AuditSink } from './record.js';
import { SqliteAuditSink } from './sqlite-sink.js';

/** Where the default sink writes and `toolwright audit` reads, relative to the working directory. */
export const DEFAULT_AUDIT_DB = join('.toolwright', 'audit.db');

/**
 * The default audit trail: `<dir>/.toolwright/audit.db` (SQLite, WAL), opened on
 * the first call. `dir` defaults to $TOOLWRIGHT_AUDIT_DIR, else the working directory.
 */
export function createDefaultAuditSink(dir: string = process.env.TOOLWRIGHT_AUDIT_DIR || process.cwd()): SqliteAuditSink {
  return new SqliteAuditSink(join(dir, DEFAULT_AUDIT_DB));
}

/**
 * The trail of a ToolServer built without an `audit` option: the default SQLite file, unless
 * the server is only used in memory (createInMemoryPair, for tests), where records are kept
 * in memory instead and nothing is written into the working directory.
 */
export class DefaultAuditSink implements AuditSink {
  private target: AuditSink;
  private used = false;

  constructor(dir?: string) {
    this.target = createDefaultAuditSink(dir);
  }

  /** Keeps records in memory from now on, if none has been written yet; the records, or undefined if too late. */
  keepInMemory(): MemoryAuditSink | undefined {
    if (this.target instanceof MemoryAuditSink) return this.target;
    if (this.used) return undefined;
    const memory = new MemoryAuditSink();
    this.target = memory;
    return memory;
  }

  /** The SQLite file the records go to; undefined once they are kept in memory. */
  get file(): string | undefined {
    return this.target instanceof SqliteAuditSink ? this.target.file : undefined;
  }

  record(entry: AuditRecord): void | Promise<void> {
    this.used = true;
    return this.target.record(entry);
  }

  flush(): void {
    this.target.flush?.();
  }

  probe(): void {
    this.used = true;
    this.target.probe?.();
  }

  ready(): Promise<void> {
    return this.target.ready?.() ?? Promise.resolve();
  }

  close(): void {
    this.target.close?.();
  }
}
