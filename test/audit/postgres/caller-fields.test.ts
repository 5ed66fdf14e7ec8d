import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PostgresAuditReader } from '../../../src/audit/postgres/reader.js';
import { AUDIT_SCHEMA_VERSION } from '../../../src/audit/postgres/schema.js';
import { PostgresAuditSink } from '../../../src/audit/postgres/sink.js';
import type { AuditQuery } from '../../../src/audit/query.js';
import { startBuiltCli } from '../../helpers/cli-process.js';
import { PG_BIN, TestPostgres } from '../../helpers/postgres.js';
import { auditRecord } from '../records.js';

// The caller's client id, scopes and tenant in the PostgreSQL trail (schema version 2), as
// test/audit/caller-fields.test.ts pins them for SQLite.
let db: TestPostgres;
beforeAll(async () => {
  db = await TestPostgres.create();
}, 60_000);
afterAll(() => db?.destroy());

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function sinkOn(url: string): PostgresAuditSink {
  const sink = new PostgresAuditSink(url, { retention: false });
  onTestFinished(() => sink.end());
  return sink;
}

function readerOn(url: string): PostgresAuditReader {
  const reader = new PostgresAuditReader(url);
  onTestFinished(() => reader.close());
  return reader;
}

/** The table exactly as schema version 1 created it (a fixed copy: what older toolwright left in real databases), with one row. */
async function versionOneDatabase(): Promise<string> {
  const url = await db.database();
  await db.query(
    `CREATE TABLE toolwright_schema (component text PRIMARY KEY, version integer NOT NULL);
     INSERT INTO toolwright_schema VALUES ('audit', 1);
     CREATE TABLE toolwright_audit (id bigserial PRIMARY KEY, record_id uuid NOT NULL UNIQUE, time timestamptz NOT NULL, era text NOT NULL,
       protocol_version text NOT NULL, principal text, method text NOT NULL DEFAULT 'tools/call', tool text NOT NULL, arguments text NOT NULL,
       status text NOT NULL, is_error boolean NOT NULL, duration_ms double precision NOT NULL, correlation_id text, request_id jsonb,
       client_name text, error_code integer);
     CREATE INDEX toolwright_audit_time ON toolwright_audit (time);
     CREATE INDEX toolwright_audit_tool ON toolwright_audit (tool, id);
     CREATE INDEX toolwright_audit_principal ON toolwright_audit (principal, id);
     INSERT INTO toolwright_audit (record_id, time, era, protocol_version, principal, tool, arguments, status, is_error, duration_ms, request_id)
       VALUES (gen_random_uuid(), now(), 'modern', '2026-07-28', 'old-alice', 'echo', '{}', 'ok', false, 1, '1');`,
    [],
    url,
  );
  return url;
}

describe.skipIf(!PG_BIN)("the caller's client id, scopes and tenant in the PostgreSQL trail", () => {
  it('are kept as written and read back; a record without them reads back without them', async () => {
    const url = await db.database();
    const sink = sinkOn(url);
    // Written together: one multi-row INSERT carries both.
    await Promise.all([
      sink.record(auditRecord({ principal: 'alice', clientId: 'agent', scopes: ['tools:read', 'reports', 'x"y\\z{,}'], tenant: 'acme', requestId: 1 })),
      sink.record(auditRecord({ principal: 'bob', requestId: 2 })),
      sink.record(auditRecord({ principal: 'carol', scopes: [], requestId: 3 })),
    ]);
    const [first, second, third] = await collect(readerOn(url).query());
    expect(first).toMatchObject({ principal: 'alice', clientId: 'agent', scopes: ['tools:read', 'reports', 'x"y\\z{,}'], tenant: 'acme' });
    expect(second).toEqual({ id: second.id, ...auditRecord({ principal: 'bob', requestId: 2, time: second.time }) });
    expect(third.scopes).toEqual([]);
    expect(third).not.toHaveProperty('clientId');
    const stored = (await db.query('SELECT client_id, scopes, tenant FROM toolwright_audit ORDER BY id', [], url)).rows;
    expect(stored).toEqual([
      { client_id: 'agent', scopes: ['tools:read', 'reports', 'x"y\\z{,}'], tenant: 'acme' },
      { client_id: null, scopes: null, tenant: null },
      { client_id: null, scopes: [], tenant: null },
    ]);
  });

  it('U+0000 in them becomes U+FFFD without failing the batch, and a filter with it finds the record', async () => {
    const url = await db.database();
    const sink = sinkOn(url);
    await Promise.all([
      sink.record(auditRecord({ principal: 'p\u0000', clientId: 'a\u0000b', scopes: ['s\u0000'], tenant: 't\u0000', requestId: 1 })),
      sink.record(auditRecord({ requestId: 2 })),
    ]);
    const reader = readerOn(url);
    const all = await collect(reader.query());
    expect(all.map((r) => [r.requestId, r.clientId, r.scopes, r.tenant])).toEqual([
      [1, 'a\uFFFDb', ['s\uFFFD'], 't\uFFFD'],
      [2, undefined, undefined, undefined],
    ]);
    expect((await collect(reader.query({ clientId: 'a\u0000b', tenant: 't\u0000', principal: 'p\u0000' }))).map((r) => r.requestId)).toEqual([1]);
  });

  it('the client id and tenant filters (with the caller one) select, count and limit alike', async () => {
    const url = await db.database();
    const sink = sinkOn(url);
    await sink.record(auditRecord({ principal: 'alice', clientId: 'agent', tenant: 'acme', requestId: 1 }));
    await sink.record(auditRecord({ principal: 'alice', clientId: 'other-app', tenant: 'globex', requestId: 2 }));
    await sink.record(auditRecord({ principal: 'bob', clientId: 'agent', requestId: 3 }));
    await sink.record(auditRecord({ principal: 'bob', clientId: 'agent', tenant: 'acme', requestId: 4 }));
    const reader = readerOn(url);
    const ids = async (query: AuditQuery) => (await collect(reader.query(query))).map((r) => r.requestId);
    expect(await ids({ principal: 'alice' })).toEqual([1, 2]);
    expect(await ids({ clientId: 'agent' })).toEqual([1, 3, 4]);
    expect(await ids({ tenant: 'globex' })).toEqual([2]);
    expect(await ids({ principal: 'alice', clientId: 'agent' })).toEqual([1]);
    expect(await ids({ clientId: 'agent', tenant: 'acme' })).toEqual([1, 4]);
    expect(await ids({ clientId: 'agent', limit: 1 })).toEqual([4]);
    expect(await ids({ clientId: 'nobody' })).toEqual([]);
    expect(await reader.count({ clientId: 'agent' })).toBe(3);
    expect(await reader.count({ tenant: 'acme' })).toBe(2);
    expect(await reader.count({ clientId: 'agent', tenant: 'acme', principal: 'bob' })).toBe(1);
  });

  it('a version 1 database migrates in place when a sink opens it, and keeps its rows (NULL in the new columns)', async () => {
    const url = await versionOneDatabase();
    // Read before any server migrated it: a filter on a column it lacks matches nothing, and says nothing is wrong.
    const before = readerOn(url);
    expect(await collect(before.query({ clientId: 'agent' }))).toEqual([]);
    expect(await before.count({ tenant: 'acme' })).toBe(0);
    expect(await before.count({ principal: 'old-alice' })).toBe(1);
    await before.close();

    // Two instances starting at once: one migrates, the other finds it done.
    const sink = sinkOn(url);
    await Promise.all([sink.ready(), sinkOn(url).ready()]);
    await sink.record(auditRecord({ principal: 'alice', clientId: 'agent', scopes: ['tools:read'], tenant: 'acme', requestId: 2 }));
    const reader = readerOn(url);
    const rows = await collect(reader.query());
    expect(rows.map((r) => [r.principal, r.clientId, r.scopes, r.tenant])).toEqual([
      ['old-alice', undefined, undefined, undefined],
      ['alice', 'agent', ['tools:read'], 'acme'],
    ]);
    expect(rows[0]).not.toHaveProperty('clientId');
    expect(await reader.count({ clientId: 'agent', tenant: 'acme' })).toBe(1);
    expect((await db.query("SELECT version FROM toolwright_schema WHERE component = 'audit'", [], url)).rows).toEqual([{ version: AUDIT_SCHEMA_VERSION }]);
    expect(AUDIT_SCHEMA_VERSION).toBe(4);
    const indexes = (await db.query("SELECT indexname FROM pg_indexes WHERE tablename = 'toolwright_audit'", [], url)).rows.map((r) => r.indexname);
    expect(indexes).toEqual(expect.arrayContaining(['toolwright_audit_client_id', 'toolwright_audit_tenant', 'toolwright_audit_principal']));
  });

  it('a filter on client id or tenant uses its index', async () => {
    const url = await db.database();
    await sinkOn(url).ready();
    // Enough rows without a client or tenant that a scan would cost more than the index.
    await db.query(
      `INSERT INTO toolwright_audit (record_id, time, era, protocol_version, tool, arguments, status, is_error, duration_ms)
       SELECT gen_random_uuid(), now(), 'modern', '2026-07-28', 'echo', '{}', 'ok', false, 1 FROM generate_series(1, 5000);
       INSERT INTO toolwright_audit (record_id, time, era, protocol_version, tool, arguments, status, is_error, duration_ms, client_id, tenant)
       VALUES (gen_random_uuid(), now(), 'modern', '2026-07-28', 'echo', '{}', 'ok', false, 1, 'agent', 'acme');
       ANALYZE toolwright_audit;`,
      [],
      url,
    );
    const plan = async (where: string) =>
      (await db.query(`EXPLAIN SELECT * FROM toolwright_audit WHERE ${where} ORDER BY id`, [], url)).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(await plan("client_id = 'agent'")).toContain('toolwright_audit_client_id');
    expect(await plan("tenant = 'acme'")).toContain('toolwright_audit_tenant');
  });
});

describe.skipIf(!PG_BIN)('toolwright audit (built) on a PostgreSQL trail, by caller', () => {
  it('--json --client-id X --tenant Y --db postgres://… prints only those calls, with their caller fields', async () => {
    const url = await db.database();
    const sink = sinkOn(url);
    await sink.record(auditRecord({ principal: 'alice', clientId: 'agent', scopes: ['tools:read'], tenant: 'acme', requestId: 1 }));
    await sink.record(auditRecord({ principal: 'alice', clientId: 'agent', tenant: 'globex', requestId: 2 }));
    await sink.record(auditRecord({ principal: 'bob', clientId: 'other-app', tenant: 'acme', requestId: 3 }));
    await sink.record(auditRecord({ principal: 'bob', clientId: 'agent', tenant: 'acme', requestId: 4 }));
    const run = async (...args: string[]) => {
      const cli = startBuiltCli(['audit', '--json', ...args, '--db', url], { env: { TOOLWRIGHT_LOG_LEVEL: 'silent' } });
      await once(cli.child, 'close'); // stdout read to its end
      expect({ code: cli.child.exitCode, stderr: cli.stderr() }).toEqual({ code: 0, stderr: '' });
      return cli
        .stdout()
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    };
    const lines = await run('--client-id', 'agent', '--tenant', 'acme');
    expect(lines.map((l) => l.requestId)).toEqual([1, 4]);
    expect(lines[0]).toMatchObject({ principal: 'alice', clientId: 'agent', scopes: ['tools:read'], tenant: 'acme' });
    expect(lines[1]).not.toHaveProperty('scopes');
    expect((await run('--caller', 'bob', '--tenant', 'acme')).map((l) => l.requestId)).toEqual([3, 4]);
    expect(await run('--client-id', 'nobody')).toEqual([]);
  }, 60_000);
});
