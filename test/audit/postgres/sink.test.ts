import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PostgresAuditReader } from '../../../src/audit/postgres/reader.js';
import { INSERT_ROWS, insertParameters, pendingRow } from '../../../src/audit/postgres/rows.js';
import { PostgresAuditSink } from '../../../src/audit/postgres/sink.js';
import { AUDIT_UNAVAILABLE, type AuditFailurePolicy } from '../../../src/server/pipeline/audit-guard.js';
import { ToolServer } from '../../../src/server/server.js';
import { createInMemoryPair } from '../../../src/testing.js';
import { PG_BIN, TestPostgres } from '../../helpers/postgres.js';
import { memoryLogger } from '../../helpers/wire.js';
import { auditRecord } from '../records.js';

let db: TestPostgres;
beforeAll(async () => {
  db = await TestPostgres.create();
}, 60_000);
afterAll(() => db?.destroy());

/** Every item of an async iterable (Array.fromAsync is Node 22's). */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const rows = async (url: string) => (await db.query('SELECT * FROM toolwright_audit ORDER BY id', [], url)).rows;

function sinkOn(url: string, options: ConstructorParameters<typeof PostgresAuditSink>[1] = {}): PostgresAuditSink {
  const sink = new PostgresAuditSink(url, { retention: false, ...options });
  onTestFinished(() => sink.end());
  return sink;
}

async function serverOn(sink: PostgresAuditSink, auditFailure?: AuditFailurePolicy) {
  const log = memoryLogger();
  let ran = 0;
  const server = new ToolServer({
    logger: log.logger,
    audit: sink,
    ...(auditFailure ? { auditFailure } : {}),
    tools: [
      {
        name: 'deploy',
        description: 'Pretends to deploy; takes a token.',
        inputSchema: { type: 'object', properties: { env: { type: 'string' }, token: { type: 'string' } } },
        handler: () => `run ${++ran}`,
      },
    ],
  });
  const pair = await createInMemoryPair(server);
  onTestFinished(async () => {
    await pair.close();
    server.close();
  });
  return { client: pair.client, server, log, runs: () => ran };
}

describe.skipIf(!PG_BIN)('the PostgreSQL audit sink', () => {
  it('records every call through a real server, redacted, committed before the answer', async () => {
    const url = await db.database();
    const sink = sinkOn(url);
    await sink.ready();
    const s = await serverOn(sink);
    // Concurrent calls go in batches; each answer comes after its record is in the table.
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => s.client.callTool('deploy', { env: `e${i}`, token: 'ghp_supersecret' })));
    expect(answers).toHaveLength(20);
    const stored = await rows(url);
    expect(stored).toHaveLength(20);
    expect(stored.map((r) => JSON.parse(r.arguments))).toEqual(expect.arrayContaining([{ env: 'e7', token: '[REDACTED]' }]));
    expect(JSON.stringify(stored)).not.toContain('ghp_supersecret');
    expect(stored[0]).toMatchObject({ tool: 'deploy', status: 'ok', is_error: false, era: 'modern', method: 'tools/call' });
    expect(new Set(stored.map((r) => r.record_id)).size).toBe(20);
  });

  it('reads back the records it wrote, as SQLite does: request ids keep their type, filters, limit and cursor', async () => {
    const url = await db.database();
    const sink = sinkOn(url);
    const hour = 3_600_000;
    const at = (ago: number) => new Date(Date.now() - ago).toISOString();
    await Promise.all([
      sink.record(auditRecord({ time: at(3 * hour), tool: 'a', requestId: 1, principal: 'alice' })),
      sink.record(auditRecord({ time: at(2 * hour), tool: 'b', requestId: '1', principal: 'bob', isError: true })),
      sink.record(auditRecord({ time: at(1 * hour), tool: 'a', requestId: null, status: 'protocol_error', errorCode: -32602, method: 'prompts/get' })),
    ]);
    const reader = new PostgresAuditReader(url);
    onTestFinished(() => reader.close());
    const all = await collect(reader.query());
    expect(all.map((r) => [r.tool, r.requestId])).toEqual([
      ['a', 1],
      ['b', '1'],
      ['a', null],
    ]);
    expect(all[2]).toMatchObject({ method: 'prompts/get', errorCode: -32602, status: 'protocol_error' });
    expect(all[0]).not.toHaveProperty('method');
    expect(all[0]).toEqual({ id: all[0].id, ...auditRecord({ time: all[0].time, tool: 'a', requestId: 1, principal: 'alice' }) });
    const tools = async (query: Parameters<PostgresAuditReader['query']>[0]) => (await collect(reader.query(query))).map((r) => r.tool + r.requestId);
    expect(await tools({ tool: 'a' })).toEqual(['a1', 'anull']);
    expect(await tools({ principal: 'bob' })).toEqual(['b1']);
    expect(await tools({ errorsOnly: true })).toEqual(['b1', 'anull']);
    expect(await tools({ since: new Date(Date.now() - 2.5 * hour), until: new Date(Date.now() - 1.5 * hour) })).toEqual(['b1']);
    expect(await tools({ limit: 2 })).toEqual(['b1', 'anull']);
    expect(await tools({ afterId: all[0].id })).toEqual(['b1', 'anull']);
    // The page before a cursor (the console's "Older records"): the newest N stored before it.
    expect(await tools({ beforeId: all[2].id, limit: 1 })).toEqual(['b1']);
    expect(await tools({ beforeId: all[2].id })).toEqual(['a1', 'b1']);
    expect(await reader.count({ tool: 'a' })).toBe(2);
  });

  it('a batch sent again (its reply lost) is not recorded twice', async () => {
    const url = await db.database();
    await sinkOn(url).ready();
    const batch = [pendingRow(auditRecord({ requestId: 1 })), pendingRow(auditRecord({ requestId: 2 }))];
    await db.query(INSERT_ROWS, insertParameters(batch), url);
    await db.query(INSERT_ROWS, insertParameters(batch), url);
    expect((await rows(url)).map((r) => r.request_id)).toEqual([1, 2]);
  });

  it('a client-chosen string PostgreSQL cannot store (U+0000) does not fail the batch it shares with other calls', async () => {
    const url = await db.database();
    const sink = sinkOn(url);
    await Promise.all([
      sink.record(auditRecord({ tool: 'evil\u0000name', requestId: 'id\u0000', clientName: 'c\u0000' })),
      sink.record(auditRecord({ tool: 'fine' })),
    ]);
    expect((await rows(url)).map((r) => [r.tool, r.request_id])).toEqual([
      ['evil\uFFFDname', 'id\uFFFD'],
      ['fine', 1],
    ]);
  });

  it('a record PostgreSQL refuses for its values fails alone: the rest of its batch and later batches are written', async () => {
    const url = await db.database();
    const sink = sinkOn(url);
    // error_code is an integer column: a library's own sink caller could pass anything.
    const bad = sink.record(auditRecord({ tool: 'bad', errorCode: 2 ** 40 }));
    const good = sink.record(auditRecord({ tool: 'good' }));
    await expect(bad).rejects.toThrow(/^PostgreSQL audit trail at .*out of range/);
    await expect(good).resolves.toBeUndefined();
    await sink.record(auditRecord({ tool: 'later' }));
    expect((await rows(url)).map((r) => r.tool)).toEqual(['good', 'later']);
    expect(sink.backlogSize).toBe(0);
    expect(sink.dropped).toBe(1);
    expect(() => sink.probe()).not.toThrow();
  });

  it('two instances migrating a fresh database at once both succeed, once', async () => {
    const url = await db.database();
    await Promise.all([sinkOn(url).ready(), sinkOn(url).ready(), sinkOn(url).ready()]);
    expect((await db.query('SELECT component, version FROM toolwright_schema', [], url)).rows).toEqual([{ component: 'audit', version: 4 }]);
    const indexes = (await db.query("SELECT indexname FROM pg_indexes WHERE tablename = 'toolwright_audit' ORDER BY 1", [], url)).rows.map((r) => r.indexname);
    expect(indexes).toEqual(expect.arrayContaining(['toolwright_audit_time', 'toolwright_audit_tool', 'toolwright_audit_principal']));
  });

  it('refuses a database written by a newer toolwright', async () => {
    const url = await db.database();
    await db.query('CREATE TABLE toolwright_schema (component text PRIMARY KEY, version integer NOT NULL)', [], url);
    await db.query("INSERT INTO toolwright_schema VALUES ('audit', 99)", [], url);
    await expect(sinkOn(url).ready()).rejects.toThrow(/schema version 99; this toolwright reads up to 4/);
  });

  it('retention deletes records past the age and row bounds, and nothing else', async () => {
    const url = await db.database();
    const sink = sinkOn(url, { retention: { maxAgeDays: 7, maxRows: 3 } });
    const day = 86_400_000;
    for (const ago of [9, 8, 5, 4, 3, 2, 1]) await sink.record(auditRecord({ time: new Date(Date.now() - ago * day).toISOString(), requestId: ago }));
    expect(await sink.prune()).toEqual({ byAge: 2, byBound: 2 });
    expect((await rows(url)).map((r) => r.request_id)).toEqual([3, 2, 1]);
    const reader = new PostgresAuditReader(url);
    onTestFinished(() => reader.close());
    expect(await reader.prune({ maxRows: 1 })).toEqual({ byAge: 0, byBound: 2 });
    expect(await reader.count()).toBe(1);
  });

  it('the URL and its password never appear in what it reports', async () => {
    const sink = new PostgresAuditSink(`postgres://postgres:hunter2@127.0.0.1:${db.port}/nosuchdb?sslmode=disable`, { retention: false });
    onTestFinished(() => sink.end());
    expect(sink.where).toBe(`postgres://127.0.0.1:${db.port}/nosuchdb`);
    const err = await sink.ready().catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/^PostgreSQL audit trail at postgres:\/\/127\.0\.0\.1:\d+\/nosuchdb: .*nosuchdb/);
    expect(err!.message).not.toContain('hunter2');
  });
});

describe.skipIf(!PG_BIN)('when PostgreSQL goes away', () => {
  it('by default calls are refused with -32603 while it is down, served again once it is back, and every answered call is recorded once', async () => {
    const url = await db.database();
    const sink = sinkOn(url);
    await sink.ready();
    const s = await serverOn(sink);
    await s.client.callTool('deploy', { env: 'before' });
    await db.stop();
    onTestFinished(() => db.start());
    // It ran before the write failed: its answer goes out, and its record is kept for later.
    expect((await s.client.callTool('deploy', { env: 'during' })).content[0]).toMatchObject({ text: 'run 2' });
    await expect(s.client.callTool('deploy', { env: 'refused' })).rejects.toMatchObject({ code: -32603, message: AUDIT_UNAVAILABLE });
    expect(s.runs()).toBe(2);
    expect(sink.backlogSize).toBe(1);
    await db.start();
    // The guard tries the trail again at most once a second; the pool reconnects on its own.
    await expect
      .poll(async () => (await s.client.callTool('deploy', { env: 'after' }).catch(() => undefined))?.content[0], { timeout: 20_000, interval: 200 })
      .toMatchObject({ text: 'run 3' });
    const stored = await rows(url);
    expect(stored.map((r) => JSON.parse(r.arguments).env)).toEqual(['before', 'during', 'after']);
    expect(sink.backlogSize).toBe(0);
    expect(s.log.records.map((r) => r.msg)).toEqual([expect.stringMatching(/^audit trail unavailable/), 'audit trail: writable again; serving requests']);
    expect(JSON.stringify(s.log.records)).not.toContain('    at ');
  }, 60_000);

  it('restarted between calls, PostgreSQL takes the next record without a failure: the pool reconnects on its own', async () => {
    const url = await db.database();
    const sink = sinkOn(url);
    await sink.ready();
    const s = await serverOn(sink);
    await s.client.callTool('deploy', { env: 'one' });
    await db.stop();
    await db.start();
    await s.client.callTool('deploy', { env: 'two' });
    expect((await rows(url)).map((r) => JSON.parse(r.arguments).env)).toEqual(['one', 'two']);
    expect(s.server.auditGuard).toMatchObject({ lost: 0, refused: 0 });
  }, 60_000);

  it("with onFailure 'warn' calls are served on, and what was lost meanwhile is written once it is back", async () => {
    const url = await db.database();
    const sink = sinkOn(url);
    await sink.ready();
    const s = await serverOn(sink, 'warn');
    await db.stop();
    onTestFinished(() => db.start());
    for (const env of ['d1', 'd2']) expect((await s.client.callTool('deploy', { env })).content[0]).toMatchObject({ text: expect.stringMatching(/^run/) });
    expect(s.server.auditGuard!.lost).toBe(2);
    await db.start();
    await s.client.callTool('deploy', { env: 'back' });
    expect((await rows(url)).map((r) => JSON.parse(r.arguments).env)).toEqual(['d1', 'd2', 'back']);
  }, 60_000);
});
