import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDefaultAuditSink, DEFAULT_AUDIT_JSONL, defaultTrailFormat, openDefaultTrail } from '../../src/audit/default-sink.js';
import { JsonlAuditReader } from '../../src/audit/jsonl-reader.js';
import { JsonlTrailSink } from '../../src/audit/jsonl-trail.js';
import { AuditLogMissingError, type AuditQuery } from '../../src/audit/query.js';
import type { StoredAuditRecord } from '../../src/audit/reader.js';
import type { AuditSink } from '../../src/audit/record.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { tempDir as makeTempDir } from '../helpers/temp.js';
import { auditRecord } from './records.js';

// The default trail of an install without better-sqlite3 (issue 33): JSON lines, group commit.
const tempDir = () => makeTempDir('toolwright-jsonl-trail-');
const opened: AuditSink[] = [];
afterEach(() => {
  for (const sink of opened.splice(0)) sink.close?.();
});
const track = <T extends AuditSink>(sink: T): T => (opened.push(sink), sink);

async function read(file: string, query: AuditQuery = {}): Promise<StoredAuditRecord[]> {
  const records: StoredAuditRecord[] = [];
  for await (const record of new JsonlAuditReader(file).query(query)) records.push(record);
  return records;
}

describe('the JSON-lines trail (JsonlTrailSink)', () => {
  it('a record settles only once its line is in the file; records of one turn share one group', async () => {
    const file = join(tempDir(), 'nested', 'audit.jsonl');
    const sink = track(new JsonlTrailSink(file));
    expect(existsSync(file)).toBe(false);
    const first = sink.record(auditRecord({ requestId: 1 }));
    const second = sink.record(auditRecord({ requestId: 2 }));
    expect(second).toBe(first);
    let seen = '';
    await first.then(() => (seen = readFileSync(file, 'utf8')));
    expect(
      seen
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).requestId),
    ).toEqual([1, 2]);
    // Private: it names callers and their arguments.
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('flush writes the open group now; close writes what is still open, synchronously', async () => {
    const file = join(tempDir(), 'audit.jsonl');
    const sink = new JsonlTrailSink(file);
    const flushed = sink.record(auditRecord({ requestId: 'a' }));
    sink.flush();
    expect(readFileSync(file, 'utf8')).toContain('"requestId":"a"');
    await flushed;
    const closing = sink.record(auditRecord({ requestId: 'b' }));
    sink.close();
    expect(readFileSync(file, 'utf8')).toContain('"requestId":"b"');
    await closing;
  });

  it('reads back every field as the sink was given it, arguments included', async () => {
    const file = join(tempDir(), 'audit.jsonl');
    const sink = track(new JsonlTrailSink(file, { fsync: false }));
    const full = auditRecord({
      requestId: '7',
      principal: 'alice',
      clientId: 'app',
      scopes: ['read', 'write'],
      tenant: 'acme',
      method: 'prompts/get',
      argumentsJson: '{"token":"[REDACTED]","n":[1,2]}',
      status: 'refused',
      reason: 'rate_limit',
      isError: true,
      errorCode: -32603,
      correlationId: 'c-1',
      instance: 'host:1',
    });
    await sink.record(full);
    expect(await read(file)).toEqual([{ id: 1, ...full }]);
  });

  it('a line torn by a crash is skipped, and the next record starts on a line of its own', async () => {
    const file = join(tempDir(), 'audit.jsonl');
    writeFileSync(file, `${JSON.stringify({ ...auditRecord({ requestId: 1 }), arguments: {} })}\n{"time":"2026-`);
    await track(new JsonlTrailSink(file)).record(auditRecord({ requestId: 2 }));
    const records = await read(file);
    expect(records.map((r) => r.requestId)).toEqual([1, 2]);
    // Ids are positions in the trail: the first record's is 1, the next one's the bytes before its line, plus 1.
    const text = readFileSync(file, 'utf8');
    const lastLine = text.lastIndexOf('\n', text.length - 2) + 1;
    expect(records.map((r) => r.id)).toEqual([1, Buffer.byteLength(text.slice(0, lastLine)) + 1]);
  });

  it('rotates past maxBytes into <file>.1 (one kept: the trail stays near twice the bound), read back oldest first', async () => {
    const file = join(tempDir(), 'audit.jsonl');
    const sink = track(new JsonlTrailSink(file, { maxBytes: 4096, fsync: false }));
    for (let i = 0; i < 30; i++) await sink.record(auditRecord({ requestId: i, argumentsJson: JSON.stringify({ pad: 'x'.repeat(100) }) }));
    expect(statSync(`${file}.1`).size).toBeGreaterThanOrEqual(4096);
    expect(statSync(`${file}.1`).size + statSync(file).size).toBeLessThan(3 * 4096);
    const records = await read(file, { limit: false });
    // The newest records, none missing between them, ids growing.
    const first = records[0]!.requestId as number;
    expect(first).toBeGreaterThan(0);
    expect(records.map((r) => r.requestId)).toEqual(Array.from({ length: 30 - first }, (_, i) => first + i));
    const ids = records.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps ids across rotations: a record keeps its id, and an afterId cursor resumes where it was', async () => {
    const file = join(tempDir(), 'audit.jsonl');
    const sink = track(new JsonlTrailSink(file, { maxBytes: 4096, fsync: false }));
    const pad = JSON.stringify({ pad: 'x'.repeat(100) });
    for (let i = 0; i < 30; i++) await sink.record(auditRecord({ requestId: i, argumentsJson: pad }));
    const before = new Map((await read(file, { limit: false })).map((r) => [r.requestId, r.id]));
    const cursor = before.get(29)!;
    // Enough more to rotate again: the oldest file kept before is gone now.
    for (let i = 30; i < 60; i++) await sink.record(auditRecord({ requestId: i, argumentsJson: pad }));
    const after = await read(file, { limit: false });
    expect(after[0]!.requestId as number).toBeGreaterThan([...before.keys()][0] as number);
    for (const record of after) if (before.has(record.requestId)) expect(record.id).toBe(before.get(record.requestId));
    // The cursor resumes at the first record after it that is still kept, with nothing before it.
    const resumed = (await read(file, { afterId: cursor, limit: false })).map((r) => r.requestId as number);
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed).toEqual(after.filter((r) => (r.requestId as number) > 29).map((r) => r.requestId));
    // The file a rotation starts says where it begins; readers skip that line as a record.
    expect(readFileSync(file, 'utf8').split('\n')[0]).toMatch(/^\{"toolwrightTrailBase":\d+\}$/);
  });

  it('deletes by age a file at a time: rotates once the first record is past maxAgeDays, drops the rotated file once its newest is', async () => {
    const file = join(tempDir(), 'audit.jsonl');
    const sink = track(new JsonlTrailSink(file, { maxAgeDays: 30, fsync: false }));
    const now = Date.UTC(2026, 10, 29);
    const daysAgo = (days: number) => new Date(now - days * 86_400_000).toISOString();
    await sink.record(auditRecord({ requestId: 1, time: daysAgo(40) }));
    await sink.record(auditRecord({ requestId: 2, time: daysAgo(10) }));
    const idOf2 = (await read(file)).find((r) => r.requestId === 2)!.id;
    // The first record is 40 days old: the file rotates; the rotated file's newest (10 days) is kept.
    expect(sink.applyAgeBound(now)).toEqual({ rotated: true, deleted: false });
    await sink.record(auditRecord({ requestId: 3, time: daysAgo(0) }));
    expect((await read(file)).map((r) => [r.requestId, r.id])).toEqual([
      [1, 1],
      [2, idOf2],
      [3, expect.any(Number)],
    ]);
    // Nothing new to do while the rotated file's newest record is younger than 30 days.
    expect(sink.applyAgeBound(now)).toEqual({ rotated: false, deleted: false });
    // 25 days on, record 2 is 35 days old: the rotated file goes; record 3 (25 days) stays, same id.
    const later = now + 25 * 86_400_000;
    const idOf3 = (await read(file)).find((r) => r.requestId === 3)!.id;
    expect(sink.applyAgeBound(later)).toEqual({ rotated: false, deleted: true });
    expect(existsSync(`${file}.1`)).toBe(false);
    expect((await read(file)).map((r) => [r.requestId, r.id])).toEqual([[3, idOf3]]);
  });

  it('applies the age bound by itself, every intervalMs, once the file is open', async () => {
    const file = join(tempDir(), 'audit.jsonl');
    // A bound of about 86 ms, checked every 50 ms.
    const sink = track(new JsonlTrailSink(file, { maxAgeDays: 0.000001, intervalMs: 50, fsync: false }));
    await sink.record(auditRecord({ requestId: 'old', time: new Date(Date.now() - 3_600_000).toISOString() }));
    await expect.poll(async () => (await read(file)).length, { timeout: 5_000 }).toBe(0);
    expect(existsSync(`${file}.1`)).toBe(false);
  });

  it('maxAgeDays false keeps every record; a bad value is refused', async () => {
    const file = join(tempDir(), 'audit.jsonl');
    const sink = track(new JsonlTrailSink(file, { maxAgeDays: false, fsync: false }));
    await sink.record(auditRecord({ time: new Date(0).toISOString() }));
    expect(sink.applyAgeBound()).toEqual({ rotated: false, deleted: false });
    expect(() => new JsonlTrailSink(file, { maxAgeDays: 0 })).toThrow(RangeError);
    expect(() => new JsonlTrailSink(file, { intervalMs: 0 })).toThrow(RangeError);
  });

  // fdatasync fails on a file that cannot be synchronized (EINVAL on /dev/null): what each mode
  // does with a sync that fails shows when it syncs.
  it("fsync 'group': a record settles only after its group's fdatasync, and fails with it", async () => {
    const sink = track(new JsonlTrailSink('/dev/null', { fsync: 'group' }));
    await expect(sink.record(auditRecord({ requestId: 1 }))).rejects.toMatchObject({ code: 'EINVAL' });
    await expect(track(new JsonlTrailSink('/dev/null', { fsync: true })).record(auditRecord({ requestId: 1 }))).rejects.toMatchObject({ code: 'EINVAL' });
  });

  it("fsync 'interval' (the default): a record settles once written; the fdatasync follows in the background, and a failed one refuses the next group", async () => {
    const sink = track(new JsonlTrailSink('/dev/null', { syncIntervalMs: 20 }));
    await sink.record(auditRecord({ requestId: 1 }));
    // The background sync has run and failed: the trail is not as durable as it says, and says so.
    await new Promise((done) => setTimeout(done, 100));
    await expect(sink.record(auditRecord({ requestId: 2 }))).rejects.toMatchObject({ code: 'EINVAL' });
    // Once said, writing goes on (and the next background sync tries again).
    await sink.record(auditRecord({ requestId: 3 }));
    expect(() => new JsonlTrailSink('x.jsonl', { syncIntervalMs: 0 })).toThrow(RangeError);
  });

  it('fsync false: never synced by the sink', async () => {
    const sink = track(new JsonlTrailSink('/dev/null', { fsync: false, syncIntervalMs: 1 }));
    await sink.record(auditRecord({ requestId: 1 }));
    await new Promise((done) => setTimeout(done, 50));
    await sink.record(auditRecord({ requestId: 2 }));
  });

  it('refuses a maxBytes too small to hold a group', () => {
    expect(() => new JsonlTrailSink('x.jsonl', { maxBytes: 10 })).toThrow(RangeError);
  });
});

describe("the JSON-lines trail's reader (what `toolwright audit` and the console use)", () => {
  async function trail(): Promise<string> {
    const file = join(tempDir(), 'audit.jsonl');
    const sink = track(new JsonlTrailSink(file, { fsync: false }));
    const at = (minute: number) => new Date(Date.UTC(2026, 6, 28, 10, minute)).toISOString();
    await sink.record(auditRecord({ requestId: 1, tool: 'a', time: at(0), principal: 'alice', tenant: 't1' }));
    await sink.record(auditRecord({ requestId: 2, tool: 'b', time: at(1), status: 'tool_error', isError: true }));
    await sink.record(auditRecord({ requestId: 3, tool: 'a', time: at(2), status: 'protocol_error', errorCode: -32602 }));
    await sink.record(auditRecord({ requestId: 4, tool: 'a', time: at(3), principal: 'bob', clientId: 'cli' }));
    return file;
  }
  // Which records came back, by the request id each was written with (1–4, in order).
  const which = (records: StoredAuditRecord[]) => records.map((r) => r.requestId);

  it('filters as the SQLite reader does: tool, caller, client, tenant, time, errors', async () => {
    const file = await trail();
    expect(which(await read(file, { tool: 'a' }))).toEqual([1, 3, 4]);
    expect(which(await read(file, { principal: 'alice' }))).toEqual([1]);
    expect(which(await read(file, { clientId: 'cli' }))).toEqual([4]);
    expect(which(await read(file, { tenant: 't1' }))).toEqual([1]);
    expect(which(await read(file, { since: new Date(Date.UTC(2026, 6, 28, 10, 1)), until: new Date(Date.UTC(2026, 6, 28, 10, 3)) }))).toEqual([2, 3]);
    expect(which(await read(file, { errorsOnly: true }))).toEqual([2, 3]);
    expect(await new JsonlAuditReader(file).count({ tool: 'a' })).toBe(3);
  });

  it('a limit keeps the newest, oldest first; afterId resumes, beforeId pages back', async () => {
    const file = await trail();
    const idOf = new Map((await read(file)).map((r) => [r.requestId, r.id]));
    expect(idOf.get(1)).toBe(1);
    expect(which(await read(file, { limit: 2 }))).toEqual([3, 4]);
    expect(which(await read(file, { afterId: idOf.get(2), limit: false }))).toEqual([3, 4]);
    expect(which(await read(file, { beforeId: idOf.get(4), limit: 2 }))).toEqual([2, 3]);
    await expect(read(file, { limit: 0 })).rejects.toThrow(RangeError);
  });

  it('says when there is no trail at all, and refuses to prune (size-bounded as written)', async () => {
    const missing = join(tempDir(), 'none.jsonl');
    await expect(read(missing)).rejects.toBeInstanceOf(AuditLogMissingError);
    await expect(new JsonlAuditReader(missing).prune({ olderThan: new Date() })).rejects.toThrow(/needs the SQLite trail \(npm install better-sqlite3\)/);
  });
});

describe('the default trail', () => {
  it('is SQLite where better-sqlite3 is installed (as in this checkout)', () => {
    expect(defaultTrailFormat()).toBe('sqlite');
    expect(track(createDefaultAuditSink(tempDir()))).toBeInstanceOf(SqliteAuditSink);
  });

  it('without better-sqlite3: .toolwright/audit.jsonl beside where audit.db would be, rotated at the retention maxBytes', async () => {
    const dir = tempDir();
    const sink = track(createDefaultAuditSink(dir, 'jsonl'));
    expect(sink).toBeInstanceOf(JsonlTrailSink);
    expect(sink.file).toBe(join(dir, DEFAULT_AUDIT_JSONL));
    await sink.record(auditRecord({ tool: 'default' }));
    expect((await read(sink.file)).map((r) => r.tool)).toEqual(['default']);
    expect(() => openDefaultTrail(join(dir, 'x.db'), { maxBytes: 1 }, 'jsonl')).toThrow(RangeError);
  });
});
