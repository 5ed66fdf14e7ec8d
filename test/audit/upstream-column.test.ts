import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { JsonlAuditReader } from '../../src/audit/jsonl-reader.js';
import { JsonlAuditSink } from '../../src/audit/jsonl-sink.js';
import { PostgresAuditReader } from '../../src/audit/postgres/reader.js';
import { PostgresAuditSink } from '../../src/audit/postgres/sink.js';
import { queryAuditLog } from '../../src/audit/query.js';
import { openDatabase } from '../../src/audit/sqlite-schema.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { PG_BIN, TestPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { auditRecord } from './records.js';

// A gateway's record names the upstream that served it; each trail keeps it and reads it back,
// and one written before the field existed gains it in place (NULL in its old rows).
const relayed = auditRecord({ tool: 'calc_add', upstream: 'calc', requestId: 2 });

describe('the upstream in the SQLite and JSON-lines trails', () => {
  it('SQLite keeps it; a version 4 file gains the column and keeps its rows', async () => {
    const file = join(tempDir('tw-audit-upstream-'), 'audit.db');
    const old = new SqliteAuditSink(file);
    await old.record(auditRecord({ requestId: 1 }));
    old.close();
    // As toolwright wrote it before the column: dropped, version 4.
    const db = openDatabase(file);
    db.exec('ALTER TABLE audit DROP COLUMN upstream');
    db.pragma('user_version = 4');
    db.close();
    const sink = new SqliteAuditSink(file);
    await sink.record(relayed);
    sink.close();
    const [plain, withUpstream] = queryAuditLog(file);
    expect(plain).not.toHaveProperty('upstream');
    expect(withUpstream).toEqual({ ...relayed, time: withUpstream.time });
  });

  it('JSON lines carry it as a field, and the reader gives it back', async () => {
    const file = join(tempDir('tw-audit-upstream-'), 'audit.jsonl');
    new JsonlAuditSink(file).record(relayed);
    const rows = [];
    for await (const row of new JsonlAuditReader(file).query()) rows.push(row);
    expect(rows.map((r) => r.upstream)).toEqual(['calc']);
  });
});

let pg: TestPostgres | undefined;
beforeAll(async () => {
  if (PG_BIN) pg = await TestPostgres.create();
}, 60_000);
afterAll(() => pg?.destroy());

describe.skipIf(!PG_BIN)('the upstream in the PostgreSQL trail', () => {
  it('is stored and read back', async () => {
    const url = await pg!.database();
    const sink = new PostgresAuditSink(url, { retention: false });
    onTestFinished(() => sink.end());
    await sink.record(relayed);
    await sink.record(auditRecord({ requestId: 3 }));
    const reader = new PostgresAuditReader(url);
    onTestFinished(() => reader.close());
    const rows = [];
    for await (const row of reader.query()) rows.push(row);
    expect(rows.map((r) => r.upstream)).toEqual(['calc', undefined]);
  }, 60_000);
});
