import { join } from 'node:path';
import { JsonlTrailSink } from './jsonl-trail.js';
import { MemoryAuditSink } from './memory-sink.js';
import type { AuditRecord, AuditSink } from './record.js';
import type { RetentionPolicy } from './retention.js';
import { sqliteDriverInstalled } from './sqlite-driver.js';
import { SqliteAuditSink } from './sqlite-sink.js';

/** Where the default sink writes and `toolwright audit` reads, relative to the working directory (SQLite; see DEFAULT_AUDIT_JSONL). */
export const DEFAULT_AUDIT_DB = join('.toolwright', 'audit.db');
/** The default trail's file where better-sqlite3 is not installed: JSON lines, beside where the SQLite file would be. */
export const DEFAULT_AUDIT_JSONL = join('.toolwright', 'audit.jsonl');

/** What keeps the default trail: SQLite, or JSON lines with group commit (JsonlTrailSink). */
export type DefaultTrailFormat = 'sqlite' | 'jsonl';

/**
 * The default trail's format here (issue 33): SQLite when better-sqlite3 is installed (an optional
 * peer dependency: a checkout's development install has it), else JSON lines, which need no
 * package and no native build. better-sqlite3 installed but not built is still SQLite: the sink
 * then stops start-up naming the fix, instead of quietly writing elsewhere.
 */
export function defaultTrailFormat(): DefaultTrailFormat {
  return sqliteDriverInstalled() ? 'sqlite' : 'jsonl';
}

/** The JSON-lines file that stands for a SQLite file: `audit.db` → `audit.jsonl`, in the same folder. */
export function jsonlTrailFileFor(sqliteFile: string): string {
  return `${sqliteFile.replace(/\.db$/i, '')}.jsonl`;
}

/**
 * The default trail at `sqliteFile`: that SQLite file, or (format 'jsonl') its JSON-lines
 * sibling, rotated at the retention policy's maxBytes and maxAgeDays (a file at a time, JsonlTrailSink).
 */
export function openDefaultTrail(
  sqliteFile: string,
  retention?: RetentionPolicy | false,
  format: DefaultTrailFormat = defaultTrailFormat(),
): SqliteAuditSink | JsonlTrailSink {
  if (format === 'sqlite') return new SqliteAuditSink(sqliteFile, { retention });
  if (retention === false) return new JsonlTrailSink(jsonlTrailFileFor(sqliteFile), { maxBytes: false, maxAgeDays: false });
  const { maxBytes, maxAgeDays, intervalMs } = retention ?? {};
  return new JsonlTrailSink(jsonlTrailFileFor(sqliteFile), { maxBytes, maxAgeDays, intervalMs });
}

/**
 * The default audit trail: `<dir>/.toolwright/audit.db` (SQLite, WAL) when better-sqlite3 is
 * installed, else `<dir>/.toolwright/audit.jsonl` (JSON lines, group commit); opened on the first
 * call. `dir` defaults to $TOOLWRIGHT_AUDIT_DIR, else the working directory.
 */
export function createDefaultAuditSink(
  dir: string = process.env.TOOLWRIGHT_AUDIT_DIR || process.cwd(),
  format: DefaultTrailFormat = defaultTrailFormat(),
): SqliteAuditSink | JsonlTrailSink {
  return openDefaultTrail(join(dir, DEFAULT_AUDIT_DB), undefined, format);
}

/**
 * The trail of a ToolServer built without an `audit` option: the default file (createDefaultAuditSink), unless
 * the server is only used in memory (createInMemoryPair, for tests), where records are kept
 * in memory instead and nothing is written into the working directory.
 */
export class DefaultAuditSink implements AuditSink {
  private target: AuditSink;
  private used = false;

  constructor(dir?: string, format?: DefaultTrailFormat) {
    this.target = createDefaultAuditSink(dir, format);
  }

  /** Keeps records in memory from now on, if none has been written yet; the records, or undefined if too late. */
  keepInMemory(): MemoryAuditSink | undefined {
    if (this.target instanceof MemoryAuditSink) return this.target;
    if (this.used) return undefined;
    const memory = new MemoryAuditSink();
    this.target = memory;
    return memory;
  }

  /** The file the records go to (SQLite or JSON lines); undefined once they are kept in memory. */
  get file(): string | undefined {
    return this.target instanceof SqliteAuditSink || this.target instanceof JsonlTrailSink ? this.target.file : undefined;
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
