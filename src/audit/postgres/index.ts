/** The audit trail in PostgreSQL: `pg` is loaded only when one of these is used. */
export { PostgresDriverError, describePostgresUrl, type PostgresPoolOptions } from './connection.js';
export { DEFAULT_POSTGRES_RETENTION, resolvePostgresRetention, type PostgresRetentionPolicy } from './prune.js';
export { PostgresAuditReader } from './reader.js';
export { AUDIT_SCHEMA_VERSION } from './schema.js';
export { PostgresAuditSink, type PostgresAuditSinkOptions } from './sink.js';
