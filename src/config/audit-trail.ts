import { join, resolve } from 'node:path';
import { DEFAULT_AUDIT_DB } from '../audit/default-sink.js';
import type { PostgresRetentionPolicy } from '../audit/postgres/prune.js';
import type { RetentionPolicy } from '../audit/retention.js';
import type { AuditRetentionConfig, ServerConfig } from './types.js';
import { expandEnv } from './expand-env.js';

/** The retention policy of a config's `server.audit.retention` (undefined: the default policy). */
function retentionOf(config: AuditRetentionConfig | false | undefined): RetentionPolicy | false | undefined {
  if (config === undefined || config === false) return config;
  return {
    ...(config.maxAgeDays === undefined ? {} : { maxAgeDays: config.maxAgeDays }),
    ...(config.maxBytes === undefined ? {} : { maxBytes: config.maxBytes }),
    ...(config.intervalSeconds === undefined ? {} : { intervalMs: config.intervalSeconds * 1000 }),
  };
}

/** The PostgreSQL retention policy of a config's `server.audit.retention` (maxBytes is SQLite's). */
function postgresRetentionOf(config: AuditRetentionConfig | false | undefined): PostgresRetentionPolicy | false | undefined {
  if (config === undefined || config === false) return config;
  return {
    ...(config.maxAgeDays === undefined ? {} : { maxAgeDays: config.maxAgeDays }),
    ...(config.maxRows === undefined ? {} : { maxRows: config.maxRows }),
    ...(config.intervalSeconds === undefined ? {} : { intervalMs: config.intervalSeconds * 1000 }),
  };
}

export interface PostgresTrail {
  /** The connection URL, `${NAME}` expanded: never to be logged or shown (describePostgresUrl). */
  url: string;
  retention: PostgresRetentionPolicy | false | undefined;
}

/** A config's PostgreSQL trail (`server.audit.postgres`), if it has one. Throws (an Error naming the variable) when a `${NAME}` in it is unset. */
export function postgresTrailOf(audit: ServerConfig['audit'], env: NodeJS.ProcessEnv = process.env): PostgresTrail | undefined {
  if (!audit || audit.postgres === undefined) return undefined;
  const url = expandEnv(audit.postgres, 'server.audit.postgres', env);
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new Error('server.audit.postgres must be a postgres:// or postgresql:// URL');
  return { url, retention: postgresRetentionOf(audit.retention) };
}

interface SqliteTrail {
  /** The database file, absolute. */
  file: string;
  retention: RetentionPolicy | false | undefined;
}

/** The default trail's file: `.toolwright/audit.db` under $TOOLWRIGHT_AUDIT_DIR, else `audit.db` in the state folder (see locateState). */
export function defaultAuditFile(stateDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.TOOLWRIGHT_AUDIT_DIR ? resolve(env.TOOLWRIGHT_AUDIT_DIR, DEFAULT_AUDIT_DB) : join(stateDir, 'audit.db');
}

/**
 * Where a config's SQLite audit trail is and how long it keeps records; undefined when the
 * config keeps none (`audit: false`, `sqlite: false`). With no `audit` section, the default
 * (defaultAuditFile: under $TOOLWRIGHT_AUDIT_DIR, else in `stateDir`, the config's folder's
 * `.toolwright/`).
 */
export function sqliteTrailOf(
  audit: ServerConfig['audit'],
  baseDir: string,
  env: NodeJS.ProcessEnv = process.env,
  stateDir = join(baseDir, '.toolwright'),
): SqliteTrail | undefined {
  if (audit === undefined) return { file: resolve(defaultAuditFile(stateDir, env)), retention: undefined };
  if (audit === false || audit.sqlite === false) return undefined;
  // A PostgreSQL trail replaces the default file; SQLite as well only when named.
  if (audit.postgres !== undefined && audit.sqlite === undefined) return undefined;
  return { file: resolve(baseDir, audit.sqlite ?? DEFAULT_AUDIT_DB), retention: retentionOf(audit.retention) };
}
