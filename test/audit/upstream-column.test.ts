import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { JsonlAuditReader } from '../../src/audit/jsonl-reader.js';
import { JsonlAuditSink } from '../../src/audit/jsonl-sink.js';
import { PostgresAuditReader } from '../../src/audit/postgres/reader.js';
import { PostgresAuditSink } from '../../src/audit/postgres/sink.js';
import { queryAuditLog, type AuditQuery } from '../../src/audit/query.js';
import type { AuditReader } from '../../src/audit/reader.js';
import { SqliteAuditReader } from '../../src/audit/reader.js';
import { openDatabase } from '../../src/audit/sqlite-schema.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { PG_BIN, TestPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { auditRecord } from './records.js';

// A gateway's record names the upstream that served it; each trail keeps it and reads it back,
// and one written before the field existed gains it in place (NULL in its old rows).
const relayed = auditRecord({ tool: 'calc_add', upstream: 'calc', requestId: 2 });

/** One relayed call to each of two upstreams around a local one: what `--upstream` picks from. */
const mixed = [
  auditRecord({ tool: 'calc_add', upstream: 'calc', requestId: 1 }),
  auditRecord({ tool: 'local', requestId: 2 }),
  auditRecord({ tool: 'files_read', upstream: 'files', requestId: 3, isError: true }),
  auditRecord({ tool: 'calc_sub', upstream: 'calc', requestId: 4 }),
];

/** The request ids a query matches, and the count it gives: both must agree. */
async function matching(reader: AuditReader, query: AuditQuery): Promise<{ ids: unknown[]; count: number }> {
  const ids = [];
  for await (const row of reader.query(query)) ids.push(row.requestId);
  const { limit: _, ...counted } = query;
  return { ids, count: await reader.count(counted) };
}

/** The upstream filter, as every trail must answer it. */
async function expectUpstreamFilter(reader: AuditReader): Promise<void> {
  expect(await matching(reader, { upstream: 'calc' })).toEqual({ ids: [1, 4], count: 2 });
  expect(await matching(reader, { upstream: 'files', errorsOnly: true })).toEqual({ ids: [3], count: 1 });
  expect(await matching(reader, { upstream: 'calc', tool: 'calc_sub' })).toEqual({ ids: [4], count: 1 });
  expect(await matching(reader, { upstream: 'calc', limit: 1 })).toEqual({ ids: [4], count: 2 });
  expect(await matching(reader, { upstream: 'nowhere' })).toEqual({ ids: [], count: 0 });
}

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

describe('the upstream filter (toolwright audit --upstream)', () => {
  it('SQLite: matches the records relayed to that upstream, in query and count', async () => {
    const file = join(tempDir('tw-audit-upstream-'), 'audit.db');
    const sink = new SqliteAuditSink(file);
    for (const r of mixed) await sink.record(r);
    sink.close();
    await expectUpstreamFilter(new SqliteAuditReader(file));
  });

  it('SQLite: a file from before the column matches nothing, and says nothing is wrong', async () => {
    const file = join(tempDir('tw-audit-upstream-'), 'audit.db');
    const sink = new SqliteAuditSink(file);
    await sink.record(auditRecord({ requestId: 1 }));
    sink.close();
    const db = openDatabase(file);
    db.exec('ALTER TABLE audit DROP COLUMN upstream');
    db.pragma('user_version = 4');
    db.close();
    expect(queryAuditLog(file, { upstream: 'calc' })).toEqual([]);
    expect(await matching(new SqliteAuditReader(file), { upstream: 'calc' })).toEqual({ ids: [], count: 0 });
    expect(queryAuditLog(file)).toHaveLength(1);
  });

  it('JSON lines: the same answers', async () => {
    const file = join(tempDir('tw-audit-upstream-'), 'audit.jsonl');
    const sink = new JsonlAuditSink(file);
    for (const r of mixed) sink.record(r);
    await expectUpstreamFilter(new JsonlAuditReader(file));
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

  it('answers the upstream filter as SQLite does', async () => {
    const url = await pg!.database();
    const sink = new PostgresAuditSink(url, { retention: false });
    onTestFinished(() => sink.end());
    for (const r of mixed) await sink.record(r);
    const reader = new PostgresAuditReader(url);
    onTestFinished(() => reader.close());
    await expectUpstreamFilter(reader);
  }, 60_000);

  it('a table from before the column (version 3) matches nothing, and says nothing is wrong', async () => {
    const url = await pg!.database();
    const sink = new PostgresAuditSink(url, { retention: false });
    await sink.record(auditRecord({ requestId: 1 }));
    await sink.end();
    await pg!.query('ALTER TABLE toolwright_audit DROP COLUMN upstream', [], url);
    await pg!.query("UPDATE toolwright_schema SET version = 3 WHERE component = 'audit'", [], url);
    const reader = new PostgresAuditReader(url);
    onTestFinished(() => reader.close());
    expect(await matching(reader, { upstream: 'calc' })).toEqual({ ids: [], count: 0 });
    expect(await matching(reader, {})).toEqual({ ids: [1], count: 1 });
  }, 60_000);
});
