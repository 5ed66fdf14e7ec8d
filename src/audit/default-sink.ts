import { join } from 'node:path';
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
