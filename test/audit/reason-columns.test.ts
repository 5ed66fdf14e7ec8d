import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { JsonlAuditSink } from '../../src/audit/jsonl-sink.js';
import { formatAuditTable } from '../../src/cli/audit.js';
import { PostgresAuditReader } from '../../src/audit/postgres/reader.js';
import { PostgresAuditSink } from '../../src/audit/postgres/sink.js';
import { queryAuditLog } from '../../src/audit/query.js';
import { openDatabase } from '../../src/audit/sqlite-schema.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { PG_BIN, TestPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { auditRecord } from './records.js';

// Each sink keeps a record's reason and instance, and reads them back; trails written before
// they existed gain them in place (NULL in their old rows).
const refused = auditRecord({ status: 'refused', isError: true, reason: 'rate_limit', instance: 'node-a', requestId: 2 });

/** The table as toolwright wrote it before reason and instance (schema version 3), with one row. */
function versionThreeFile(file: string): void {
  const db = openDatabase(file);
  db.exec(`CREATE TABLE audit (id INTEGER PRIMARY KEY, time TEXT NOT NULL, era TEXT NOT NULL, protocol_version TEXT NOT NULL, principal TEXT,
    tool TEXT NOT NULL, arguments TEXT NOT NULL, status TEXT NOT NULL, is_error INTEGER NOT NULL, duration_ms REAL NOT NULL, correlation_id TEXT,
    request_id, client_name TEXT, error_code INTEGER, method TEXT NOT NULL DEFAULT 'tools/call', client_id TEXT, scopes TEXT, tenant TEXT)`);
  db.prepare(
    "INSERT INTO audit (time, era, protocol_version, principal, tool, arguments, status, is_error, duration_ms, request_id) VALUES (?, 'modern', '2026-07-28', 'old', 'echo', '{}', 'refused', 1, 1, 1)",
  ).run(new Date().toISOString());
  db.pragma('user_version = 3');
  db.close();
}

describe('reason and instance in the SQLite and JSON-lines trails', () => {
  it('SQLite keeps them and reads them back; a record without them reads back without them', async () => {
    const file = join(tempDir('tw-audit-reason-'), 'audit.db');
    const sink = new SqliteAuditSink(file);
    await sink.record(auditRecord({ requestId: 1 }));
    await sink.record(refused);
    sink.close();
    const [plain, limited] = queryAuditLog(file);
    expect(plain).not.toHaveProperty('reason');
    expect(plain).not.toHaveProperty('instance');
    expect(limited).toEqual({ ...refused, time: limited.time });
  });

  it('a version 3 SQLite file gains the columns when a server writes to it, and keeps its rows', async () => {
    const file = join(tempDir('tw-audit-reason-'), 'audit.db');
    versionThreeFile(file);
    expect(queryAuditLog(file)).toHaveLength(1);
    const sink = new SqliteAuditSink(file);
    await sink.record(refused);
    sink.close();
    expect(queryAuditLog(file).map((r) => [r.principal, r.reason, r.instance])).toEqual([
      ['old', undefined, undefined],
      [null, 'rate_limit', 'node-a'],
    ]);
    const db = openDatabase(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(5);
    db.close();
  });

  it('toolwright audit shows the reason beside the status, when it says more than the status', () => {
    const table = formatAuditTable([refused, auditRecord({ status: 'timeout', isError: true, reason: 'timeout' })]);
    expect(table).toContain('refused (rate_limit)');
    expect(table).not.toContain('timeout (timeout)');
  });

  it('JSON lines carry them as fields of the record', () => {
    const file = join(tempDir('tw-audit-reason-'), 'audit.jsonl');
    new JsonlAuditSink(file).record(refused);
    expect(JSON.parse(readFileSync(file, 'utf8').trim())).toMatchObject({ reason: 'rate_limit', instance: 'node-a' });
  });
});

let pg: TestPostgres | undefined;
beforeAll(async () => {
  if (PG_BIN) pg = await TestPostgres.create();
}, 60_000);
afterAll(() => pg?.destroy());

describe.skipIf(!PG_BIN)('reason and instance in the PostgreSQL trail', () => {
  it('a version 2 database migrates in place, keeps its rows, and stores and reads both', async () => {
    const url = await pg!.database();
    // Version 2: the columns before reason and instance (an older sink's migrations 1 and 2).
    await pg!.query(
      `CREATE TABLE toolwright_schema (component text PRIMARY KEY, version integer NOT NULL);
       INSERT INTO toolwright_schema VALUES ('audit', 2);
       CREATE TABLE toolwright_audit (id bigserial PRIMARY KEY, record_id uuid NOT NULL UNIQUE, time timestamptz NOT NULL, era text NOT NULL,
         protocol_version text NOT NULL, principal text, method text NOT NULL DEFAULT 'tools/call', tool text NOT NULL, arguments text NOT NULL,
         status text NOT NULL, is_error boolean NOT NULL, duration_ms double precision NOT NULL, correlation_id text, request_id jsonb,
         client_name text, error_code integer, client_id text, scopes jsonb, tenant text);
       INSERT INTO toolwright_audit (record_id, time, era, protocol_version, principal, tool, arguments, status, is_error, duration_ms, request_id)
         VALUES (gen_random_uuid(), now(), 'modern', '2026-07-28', 'old', 'echo', '{}', 'refused', true, 1, '1');`,
      [],
      url,
    );
    const sink = new PostgresAuditSink(url, { retention: false });
    onTestFinished(() => sink.end());
    await sink.record(refused);
    const reader = new PostgresAuditReader(url);
    onTestFinished(() => reader.close());
    const rows = [];
    for await (const row of reader.query()) rows.push(row);
    expect(rows.map((r) => [r.principal, r.reason, r.instance])).toEqual([
      ['old', undefined, undefined],
      [null, 'rate_limit', 'node-a'],
    ]);
    expect((await pg!.query('SELECT reason, instance FROM toolwright_audit ORDER BY id', [], url)).rows).toEqual([
      { reason: null, instance: null },
      { reason: 'rate_limit', instance: 'node-a' },
    ]);
  }, 60_000);
});
