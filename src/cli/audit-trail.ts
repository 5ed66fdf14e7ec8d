import { existsSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { defaultTrailFormat, jsonlTrailFileFor } from '../audit/default-sink.js';
import { JsonlAuditReader } from '../audit/jsonl-reader.js';
import type { RetentionPolicy } from '../audit/retention.js';
import { describePostgresUrl } from '../audit/postgres/connection.js';
import { PostgresAuditReader } from '../audit/postgres/reader.js';
import { SqliteAuditReader, type AuditReader } from '../audit/reader.js';
import { defaultAuditFile, postgresTrailOf, sqliteTrailOf, type PostgresTrail } from '../config/audit-trail.js';
import { findConfig, loadConfig } from '../config/load.js';
import { locateState } from '../config/state-dir.js';
import { ConfigError } from '../config/validate.js';
import { UsageError } from './errors.js';

export interface TrailOptions {
  /** --db: the database file. */
  db?: string;
  /** --config: the config whose trail to use (default: toolwright.config.* in the working directory). */
  config?: string;
}

export interface Trail {
  /** The SQLite file; for a PostgreSQL trail, its URL without the password (to show). */
  file: string;
  /** Set when the trail is in PostgreSQL (server.audit.postgres, or --db postgres://…). */
  postgres?: PostgresTrail;
  /** The config's retention policy (undefined: the default policy). */
  retention: RetentionPolicy | false | undefined;
  /** Where a server writes this file, for the message when it does not exist yet. */
  hint: string;
}

/**
 * The trail `toolwright audit` reads and `audit prune` prunes: --db (a SQLite file or a
 * postgres:// URL), else the one the
 * config describes (--config, or toolwright.config.* in the working directory), else the
 * server's default (PostgreSQL when the config has server.audit.postgres; else .toolwright/audit.db under $TOOLWRIGHT_AUDIT_DIR, else in the state folder a
 * server started here uses: the project's .toolwright/ or the per-user state dir, see locateState).
 * The config is read only when its answer is needed: for the file without --db, and for the
 * retention policy when `needPolicy`.
 */
export function locateTrail(options: TrailOptions, needPolicy: boolean): Trail {
  const trail = locateAnyTrail(options, needPolicy);
  if (options.db !== undefined && isPostgresUrl(options.db)) {
    const retention = trail.postgres?.retention;
    return { file: describePostgresUrl(options.db), postgres: { url: options.db, retention }, retention: undefined, hint: '' };
  }
  return trail;
}

const isPostgresUrl = (text: string) => /^postgres(ql)?:\/\//i.test(text);

function locateAnyTrail(options: TrailOptions, needPolicy: boolean): Trail {
  const cwd = process.cwd();
  if (options.db !== undefined && !needPolicy) return { file: options.db, retention: undefined, hint: '' };
  const configFile = findConfig(cwd, options.config);
  if (!configFile) {
    if (options.db !== undefined) return { file: options.db, retention: undefined, hint: '' };
    const state = locateState(cwd);
    const file = defaultTrailOn(defaultAuditFile(state.dir));
    const inside = relative(cwd, file);
    const where = state.project ? '' : ', in the per-user state dir: this directory is not a project';
    return {
      file: inside.startsWith('..') || isAbsolute(inside) ? file : inside,
      retention: undefined,
      hint: ` (a server started in this directory writes it once it has served a call${where})`,
    };
  }
  let loaded: ReturnType<typeof loadConfig>;
  try {
    loaded = loadConfig(configFile);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  const audit = loaded.config.server?.audit;
  let postgres: PostgresTrail | undefined;
  try {
    postgres = postgresTrailOf(audit);
  } catch (err) {
    throw new UsageError(`${loaded.file}: ${(err as Error).message}`);
  }
  // The trail a server of this config writes first: PostgreSQL when it has one (SQLite is then an extra copy, read with --db).
  if (postgres && (options.db === undefined || isPostgresUrl(options.db))) {
    return { file: describePostgresUrl(postgres.url), postgres, retention: undefined, hint: ` (the server of ${loaded.file} creates it when it starts)` };
  }
  const named = sqliteTrailOf(audit, loaded.baseDir, process.env, locateState(cwd, configFile).dir);
  // No file named: the default trail, SQLite or JSON lines (openDefaultTrail).
  const trail = named && (audit || undefined)?.sqlite === undefined ? { ...named, file: defaultTrailOn(named.file) } : named;
  if (options.db !== undefined) return { file: options.db, retention: trail?.retention, hint: '' };
  if (!trail) {
    throw new UsageError(`${loaded.file} keeps no SQLite audit trail (server.audit${audit === false ? '' : '.sqlite'}: false); pass --db <file> to name one`);
  }
  return { file: trail.file, retention: trail.retention, hint: ` (the server of ${loaded.file} writes it once it has served a call)` };
}

/** A JSON-lines trail (the default without better-sqlite3, or a server.audit.jsonl copy): read by JsonlAuditReader. */
export function isJsonlTrail(file: string): boolean {
  return /\.jsonl$/i.test(file);
}

/**
 * The default trail's file where its SQLite file would be: the one that exists (SQLite first), else
 * the one a server started here writes (defaultTrailFormat), so the "no audit log" hint names it.
 */
function defaultTrailOn(sqliteFile: string): string {
  const jsonl = jsonlTrailFileFor(sqliteFile);
  if (existsSync(sqliteFile)) return sqliteFile;
  if (existsSync(jsonl) || existsSync(`${jsonl}.1`)) return jsonl;
  return defaultTrailFormat() === 'sqlite' ? sqliteFile : jsonl;
}

/** The reader of a located trail: PostgreSQL's, a JSON-lines file's, or SQLite's. */
export function openTrailReader(trail: Trail): AuditReader {
  if (trail.postgres) return new PostgresAuditReader(trail.postgres.url);
  return isJsonlTrail(trail.file) ? new JsonlAuditReader(trail.file) : new SqliteAuditReader(trail.file);
}
