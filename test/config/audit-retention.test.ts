import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { queryAuditLog } from '../../src/audit/query.js';
import type { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { sqliteTrailOf } from '../../src/config/audit-trail.js';
import { buildServer } from '../../src/config/build.js';
import { loadConfig } from '../../src/config/load.js';
import type { ToolServer } from '../../src/server/server.js';
import { auditRecord } from '../audit/records.js';
import { configProblems } from '../helpers/config.js';
import { tempDir } from '../helpers/temp.js';

const DAY = 86_400_000;
const servers: ToolServer[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

function configIn(folder: string, audit: unknown): string {
  const file = join(folder, 'toolwright.config.json');
  writeFileSync(file, JSON.stringify({ server: { audit }, toolsets: { math: {} } }));
  return file;
}

const problems = (file: string): string[] => configProblems(() => loadConfig(file));

describe('server.audit.retention', () => {
  it('accepts a policy, false, or each bound switched off', () => {
    const folder = tempDir('toolwright-config-retention-');
    for (const retention of [
      { maxAgeDays: 7, maxBytes: 1_048_576, intervalSeconds: 60 },
      false,
      { maxAgeDays: false },
      { maxBytes: false },
      { maxAgeDays: 0.5 },
    ]) {
      expect(problems(configIn(folder, { retention }))).toEqual([]);
    }
  });

  it('refuses values that cannot be a policy, naming the key', () => {
    const folder = tempDir('toolwright-config-retention-');
    for (const [retention, key] of [
      [{ maxAgeDays: 0 }, 'maxAgeDays'],
      [{ maxAgeDays: '30d' }, 'maxAgeDays'],
      [{ maxBytes: 1000 }, 'maxBytes'],
      [{ maxBytes: 1.5 }, 'maxBytes'],
      [{ intervalSeconds: 0 }, 'intervalSeconds'],
      [{ maxAge: 30 }, 'maxAge'],
      [true, 'retention'],
    ] as const) {
      expect(problems(configIn(folder, { retention })).join('\n')).toContain(key);
    }
  });

  it('a server built from the config prunes its trail by that policy', async () => {
    const folder = tempDir('toolwright-config-retention-');
    const loaded = loadConfig(configIn(folder, { sqlite: 'trail.db', retention: { maxAgeDays: 7, maxBytes: false } }));
    const { server } = buildServer(loaded.config, loaded.baseDir, '1.0.0');
    servers.push(server);
    const sink = server.audit as SqliteAuditSink;
    await sink.record(auditRecord({ time: new Date(Date.now() - 8 * DAY).toISOString(), requestId: 1 }));
    await sink.record(auditRecord({ time: new Date(Date.now() - 6 * DAY).toISOString(), requestId: 2 }));
    expect(await sink.prune()).toMatchObject({ byAge: 1, bySize: 0 });
    expect(queryAuditLog(join(folder, 'trail.db')).map((r) => r.requestId)).toEqual([2]);
  });

  it('retention: false keeps every record', async () => {
    const folder = tempDir('toolwright-config-retention-');
    const loaded = loadConfig(configIn(folder, { sqlite: 'trail.db', retention: false }));
    const { server } = buildServer(loaded.config, loaded.baseDir, '1.0.0');
    servers.push(server);
    const sink = server.audit as SqliteAuditSink;
    await sink.record(auditRecord({ time: new Date(Date.now() - 3650 * DAY).toISOString() }));
    expect(await sink.prune()).toMatchObject({ byAge: 0, bySize: 0 });
    expect(queryAuditLog(join(folder, 'trail.db'))).toHaveLength(1);
  });

  it('the CLI finds the trail a config describes: its file, its policy, or none', () => {
    const base = '/srv/app';
    const env = { TOOLWRIGHT_AUDIT_DIR: '/var/audit' };
    expect(sqliteTrailOf(undefined, base, env, '/cwd')).toEqual({ file: '/var/audit/.toolwright/audit.db', retention: undefined });
    expect(sqliteTrailOf({ sqlite: 'logs/a.db', retention: { maxAgeDays: 2, intervalSeconds: 30 } }, base, env)).toEqual({
      file: '/srv/app/logs/a.db',
      retention: { maxAgeDays: 2, intervalMs: 30_000 },
    });
    expect(sqliteTrailOf({ jsonl: 'a.jsonl' }, base, env)).toEqual({ file: '/srv/app/.toolwright/audit.db', retention: undefined });
    expect(sqliteTrailOf(false, base, env)).toBeUndefined();
    expect(sqliteTrailOf({ sqlite: false, jsonl: 'a.jsonl' }, base, env)).toBeUndefined();
  });
});
