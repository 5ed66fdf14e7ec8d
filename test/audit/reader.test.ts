import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLogMissingError } from '../../src/audit/query.js';
import { SqliteAuditReader, type AuditReader } from '../../src/audit/reader.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { tempDir } from '../helpers/temp.js';
import { auditRecord } from './records.js';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

// The SQLite trail through the AuditReader interface that `toolwright audit` uses for every engine
// (PostgreSQL's is tested against a real server in test/audit/postgres/).
describe('SqliteAuditReader', () => {
  it('queries with filters (tool, principal, time range, errors, limit, cursor), counts and prunes', async () => {
    const file = join(tempDir('toolwright-reader-'), 'audit.db');
    const sink = new SqliteAuditSink(file, { retention: false });
    const hour = 3_600_000;
    const at = (ago: number) => new Date(Date.now() - ago).toISOString();
    await sink.record(auditRecord({ time: at(50 * 24 * hour), tool: 'a', requestId: 1, principal: 'alice' }));
    await sink.record(auditRecord({ time: at(2 * hour), tool: 'b', requestId: '2', principal: 'bob', isError: true }));
    await sink.record(auditRecord({ time: at(1 * hour), tool: 'a', requestId: 3, principal: 'bob' }));
    sink.close();
    const reader: AuditReader = new SqliteAuditReader(file);
    const all = await collect(reader.query());
    expect(all.map((r) => r.requestId)).toEqual([1, '2', 3]);
    expect(all[0]).toEqual({ id: all[0].id, ...auditRecord({ time: all[0].time, tool: 'a', requestId: 1, principal: 'alice' }) });
    const ids = async (query: Parameters<AuditReader['query']>[0]) => (await collect(reader.query(query))).map((r) => r.requestId);
    expect(await ids({ principal: 'bob' })).toEqual(['2', 3]);
    expect(await ids({ principal: 'bob', tool: 'a' })).toEqual([3]);
    expect(await ids({ since: new Date(Date.now() - 3 * hour), until: new Date(Date.now() - 1.5 * hour) })).toEqual(['2']);
    expect(await ids({ errorsOnly: true })).toEqual(['2']);
    expect(await ids({ limit: 1 })).toEqual([3]);
    expect(await ids({ afterId: all[1].id })).toEqual([3]);
    expect(await reader.count({ principal: 'bob' })).toBe(2);
    await expect(reader.prune({ maxRows: 1 })).rejects.toThrow(/bounded by size/);
    expect(await reader.prune({ olderThan: new Date(Date.now() - 30 * 24 * hour) })).toEqual({ byAge: 1, byBound: 0 });
    expect(await reader.count()).toBe(2);
    await reader.close();
  });

  it('a file that does not exist is AuditLogMissingError (and is not created)', async () => {
    const reader = new SqliteAuditReader(join(tempDir('toolwright-reader-'), 'nope.db'));
    await expect(collect(reader.query())).rejects.toBeInstanceOf(AuditLogMissingError);
    await expect(reader.count()).rejects.toBeInstanceOf(AuditLogMissingError);
  });
});
