/** The audit trail: one record per `tools/call`, redacted, in SQLite (default with better-sqlite3), JSON lines (default without it), PostgreSQL (./postgres/), or any sink; read through an AuditReader. */
export type { AuditRecord, AuditReason, AuditSink, AuditStatus } from './record.js';
export { auditArgumentsJson, MAX_AUDIT_ARGUMENT_BYTES, MAX_AUDIT_STRING_CHARS } from './arguments.js';
export { isSecretKey, redactArguments, REDACTED } from './redact.js';
export { SqliteAuditSink, type SqliteAuditSinkOptions } from './sqlite-sink.js';
export { SqliteDriverError } from './sqlite-driver.js';
export { DEFAULT_RETENTION, type PruneResult, type RetentionPolicy } from './retention.js';
export { JsonlAuditSink } from './jsonl-sink.js';
export { JsonlTrailSink, type JsonlTrailOptions } from './jsonl-trail.js';
export { JsonlAuditReader } from './jsonl-reader.js';
export { FanoutAuditSink } from './fanout-sink.js';
export { createDefaultAuditSink, DEFAULT_AUDIT_DB, DEFAULT_AUDIT_JSONL, DefaultAuditSink, type DefaultTrailFormat } from './default-sink.js';
export { MemoryAuditSink } from './memory-sink.js';
export { AuditLogMissingError, DEFAULT_QUERY_LIMIT, iterateAuditLog, parseSince, queryAuditLog, type AuditQuery } from './query.js';
export { SqliteAuditReader, type AuditPruneBounds, type AuditPruneCounts, type AuditReader, type StoredAuditRecord } from './reader.js';
