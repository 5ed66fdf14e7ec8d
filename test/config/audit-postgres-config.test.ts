import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FanoutAuditSink } from '../../src/audit/fanout-sink.js';
import { PostgresAuditSink } from '../../src/audit/postgres/sink.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { postgresTrailOf, sqliteTrailOf } from '../../src/config/audit-trail.js';
import { buildServer } from '../../src/config/build.js';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/validate.js';
import { configProblems } from '../helpers/config.js';
import { tempDir } from '../helpers/temp.js';

// No database is contacted here: a PostgreSQL sink connects on ready() or its first record.
function configIn(audit: unknown): string {
  const file = join(tempDir('toolwright-config-pg-'), 'toolwright.config.json');
  writeFileSync(file, JSON.stringify({ server: { audit }, toolsets: { math: {} } }));
  return file;
}

function build(audit: unknown) {
  const loaded = loadConfig(configIn(audit));
  const { server } = buildServer(loaded.config, loaded.baseDir, '1.0.0', loaded.file, join(loaded.baseDir, '.toolwright'));
  return server;
}

describe('server.audit.postgres', () => {
  it('keeps the trail in PostgreSQL instead of SQLite, or in both when sqlite names a file', () => {
    const alone = build({ postgres: 'postgres://u:secret@db.example:5432/app', retention: { maxRows: 10 } });
    expect(alone.audit).toBeInstanceOf(PostgresAuditSink);
    expect((alone.audit as PostgresAuditSink).where).toBe('postgres://db.example:5432/app');
    expect(sqliteTrailOf({ postgres: 'postgres://db/app' }, '/srv')).toBeUndefined();
    const both = build({ postgres: 'postgres://db/app', sqlite: 'copy.db' });
    expect((both.audit as FanoutAuditSink).sinks.map((s) => s.constructor)).toEqual([SqliteAuditSink, PostgresAuditSink]);
  });

  it('expands ${NAME} from the environment, and an unset one is a config error naming it', () => {
    expect(postgresTrailOf({ postgres: '${PG_URL}' }, { PG_URL: 'postgresql://h/db' })).toEqual({ url: 'postgresql://h/db', retention: undefined });
    expect(postgresTrailOf({ postgres: 'postgres://app:${PG_PASS}@h/db', retention: { maxAgeDays: 3, maxBytes: 65536 } }, { PG_PASS: 'p' })).toEqual({
      url: 'postgres://app:p@h/db',
      retention: { maxAgeDays: 3 },
    });
    const name = `TW_TEST_UNSET_${process.pid}`;
    expect(() => build({ postgres: `\${${name}}` })).toThrow(ConfigError);
    expect(() => build({ postgres: `\${${name}}` })).toThrow(`\${${name}} is not set in the environment`);
  });

  it('refuses what is not a postgres:// URL, and a bad row bound, naming the key', () => {
    expect(configProblems(() => loadConfig(configIn({ postgres: 'mysql://h/db' }))).join('\n')).toContain('postgres');
    expect(configProblems(() => loadConfig(configIn({ postgres: 'postgres://h/db', retention: { maxRows: 0 } }))).join('\n')).toContain('maxRows');
    expect(() => postgresTrailOf({ postgres: '${X}' }, { X: 'http://h/db' })).toThrow(/must be a postgres:\/\/ or postgresql:\/\/ URL/);
  });
});
