import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/record.js';
import { databaseBytesInUse, pruneNow, pruneSteps, resolveRetention } from '../../src/audit/retention.js';
import { openDatabase, type Database } from '../../src/audit/sqlite-schema.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { tempDir } from '../helpers/temp.js';
import { tsProgram } from '../helpers/ts-program.js';
import { auditRecord } from './records.js';

const DAY = 86_400_000;
const opened: Array<{ close(): void }> = [];
afterEach(() => {
  for (const thing of opened.splice(0)) thing.close();
});
const track = <T extends { close(): void }>(thing: T): T => (opened.push(thing), thing);

/** A sink that never prunes by itself, for filling a database. */
function filler(file: string): SqliteAuditSink {
  return track(new SqliteAuditSink(file, { retention: false }));
}

/** `count` records with ids from `firstRequestId`, their times `ageMs` before now, ~300 bytes each. */
async function fill(sink: SqliteAuditSink, count: number, ageMs: number, firstRequestId = 0): Promise<void> {
  const time = new Date(Date.now() - ageMs).toISOString();
  const records: AuditRecord[] = [];
  for (let i = 0; i < count; i++) records.push(auditRecord({ time, requestId: firstRequestId + i, argumentsJson: `{"text":"${'x'.repeat(200)}"}` }));
  // In groups, as a busy server commits them.
  for (let at = 0; at < records.length; at += 500) await Promise.all(records.slice(at, at + 500).map((r) => sink.record(r)));
}

function requestIds(file: string): number[] {
  const db = track(openDatabase(file, { readonly: true }));
  return db.prepare('SELECT request_id FROM audit ORDER BY id').pluck().all() as number[];
}

function open(file: string): Database {
  const db = track(openDatabase(file));
  db.pragma('busy_timeout = 5000');
  return db;
}

describe('the retention policy', () => {
  it('defaults to 30 days and 256 MiB; false keeps everything; bad values are refused', () => {
    expect(resolveRetention(undefined)).toEqual({ maxAgeMs: 30 * DAY, maxBytes: 256 * 1024 * 1024, intervalMs: 600_000 });
    expect(resolveRetention(false)).toBeUndefined();
    expect(resolveRetention({ maxAgeDays: false, maxBytes: false })).toBeUndefined();
    expect(resolveRetention({ maxAgeDays: 0.5, maxBytes: false })).toEqual({ maxAgeMs: DAY / 2, intervalMs: 600_000 });
    for (const bad of [{ maxAgeDays: 0 }, { maxAgeDays: -1 }, { maxAgeDays: Number.NaN }, { maxBytes: 1000 }, { maxBytes: 1.5e6 + 0.5 }, { intervalMs: 0 }]) {
      expect(() => resolveRetention(bad)).toThrow(RangeError);
    }
    expect(() => new SqliteAuditSink('unused.db', { retention: { maxAgeDays: 0 } })).toThrow(/maxAgeDays/);
  });
});

describe('pruning by age', () => {
  it('deletes the records older than the bound and keeps every younger one, the boundary included', async () => {
    const file = join(tempDir('toolwright-retention-'), 'audit.db');
    const sink = filler(file);
    await fill(sink, 2500, 40 * DAY, 0); // more than one step's window
    await fill(sink, 10, 29 * DAY, 10_000);
    const cutoff = new Date(Date.now() - 30 * DAY);
    await sink.record(auditRecord({ time: new Date(cutoff.getTime() - 1).toISOString(), requestId: 20_000 })); // 1 ms too old
    await sink.record(auditRecord({ time: cutoff.toISOString(), requestId: 20_001 })); // exactly at the bound: kept
    await fill(sink, 5, 0, 30_000);
    const result = pruneNow(open(file), { olderThan: cutoff });
    expect(result.byAge).toBe(2501);
    expect(requestIds(file)).toEqual([...range(10_000, 10), 20_001, ...range(30_000, 5)]);
  });

  it('a record out of order (a clock step) is kept while young, and older records after it still go', async () => {
    const file = join(tempDir('toolwright-retention-'), 'audit.db');
    const sink = filler(file);
    await sink.record(auditRecord({ time: new Date(Date.now() + DAY).toISOString(), requestId: 1 })); // clock ahead
    await fill(sink, 1500, 60 * DAY, 100);
    await fill(sink, 3, DAY, 5000);
    expect(pruneNow(open(file), { olderThan: new Date(Date.now() - 30 * DAY) }).byAge).toBe(1500);
    expect(requestIds(file)).toEqual([1, 5000, 5001, 5002]);
  });
});

describe('pruning by size', () => {
  it('deletes the oldest records until the pages in use fit, and not a page more', async () => {
    const file = join(tempDir('toolwright-retention-'), 'audit.db');
    const sink = filler(file);
    await fill(sink, 8000, DAY); // ~2.5 MB
    const db = open(file);
    const maxBytes = 1024 * 1024;
    expect(databaseBytesInUse(db)).toBeGreaterThan(2 * maxBytes);
    const result = pruneNow(db, { maxBytes });
    const used = databaseBytesInUse(db);
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    expect(used).toBeLessThanOrEqual(maxBytes);
    expect(used).toBeGreaterThan(maxBytes - pageSize); // no page more was freed: the newest records that fit are all still there
    const kept = requestIds(file);
    expect(kept.length + result.bySize).toBe(8000);
    expect(kept).toEqual(range(8000 - kept.length, kept.length)); // the oldest went, in order
  });

  it('a new database returns the freed pages to the operating system: the file shrinks', async () => {
    const file = join(tempDir('toolwright-retention-'), 'audit.db');
    const sink = filler(file);
    await fill(sink, 8000, DAY);
    const db = open(file);
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2); // INCREMENTAL, set when the file was made
    db.pragma('wal_checkpoint(TRUNCATE)');
    const before = statSync(file).size;
    const result = pruneNow(db, { maxBytes: 512 * 1024 });
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(result.pagesReturned).toBeGreaterThan(0);
    expect(statSync(file).size).toBeLessThanOrEqual(512 * 1024);
    expect(statSync(file).size).toBeLessThan(before / 4);
  });

  it('with both bounds, age goes first and size takes younger records only as far as it must', async () => {
    const file = join(tempDir('toolwright-retention-'), 'audit.db');
    const sink = filler(file);
    await fill(sink, 1000, 45 * DAY, 0);
    await fill(sink, 6000, DAY, 10_000);
    const result = pruneNow(open(file), { olderThan: new Date(Date.now() - 30 * DAY), maxBytes: 1024 * 1024 });
    expect(result.byAge).toBe(1000);
    expect(result.bySize).toBeGreaterThan(0);
    const kept = requestIds(file);
    expect(kept[0]).toBe(10_000 + result.bySize);
    expect(kept.at(-1)).toBe(15_999);
  });
});

describe('the background pruner', () => {
  it('runs by itself on its interval, deleting old records while new ones keep arriving, none of them lost', async () => {
    const file = join(tempDir('toolwright-retention-'), 'audit.db');
    const fillSink = filler(file);
    await fill(fillSink, 3000, 40 * DAY, 0);
    fillSink.close();
    const sink = track(new SqliteAuditSink(file, { retention: { maxAgeDays: 30, maxBytes: false, intervalMs: 20 } }));
    // Calls keep coming while the pruner works: one record per turn of the event loop.
    let written = 0;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      await sink.record(auditRecord({ requestId: 100_000 + written++ }));
      if (written % 50 === 0 && requestIds(file)[0] >= 100_000) break;
    }
    await sink.record(auditRecord({ requestId: 100_000 + written++ }));
    expect(requestIds(file)).toEqual(range(100_000, written));
  });

  it('takes one small step per turn of the event loop, starting in a later turn than the caller', async () => {
    const file = join(tempDir('toolwright-retention-'), 'audit.db');
    const fillSink = filler(file);
    await fill(fillSink, 5000, 40 * DAY, 0);
    fillSink.close();
    const sink = track(new SqliteAuditSink(file, { retention: { maxAgeDays: 30, maxBytes: false } }));
    const pass = sink.prune();
    expect(requestIds(file)).toHaveLength(5000); // nothing done in the caller's turn
    // Count turns of the event loop while the pass runs: at least one between any two steps.
    let turns = 0;
    let running = true;
    const spin = () => {
      turns++;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    const result = await pass;
    running = false;
    expect(result.byAge).toBe(5000);
    expect(turns).toBeGreaterThanOrEqual(5); // 5,000 rows, 1,000 a step
    expect(requestIds(file)).toEqual([]);
  });

  it('never keeps a process alive: a script that records a call exits by itself', async () => {
    const file = join(tempDir('toolwright-retention-'), 'audit.db');
    const script = `
      const { SqliteAuditSink } = await import(${JSON.stringify(new URL('../../src/audit/sqlite-sink.ts', import.meta.url).pathname)});
      const sink = new SqliteAuditSink(process.env.AUDIT_DB, { retention: { maxAgeDays: 1, intervalMs: 60_000 } });
      await sink.record(${JSON.stringify(auditRecord())});
      sink.prune(); // a pass under way too
      // What keeps the event loop alive now: no timer, no immediate of the pruner's.
      console.log(JSON.stringify(process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'Immediate')));`;
    const program = join(tempDir('toolwright-retention-script-'), 'script.ts');
    writeFileSync(program, script);
    const child = spawn(process.execPath, tsProgram(program), { env: { ...process.env, AUDIT_DB: file } });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    clearTimeout(timer);
    expect({ code, signal, out: out.trim() }).toEqual({ code: 0, signal: null, out: '[]' });
    expect(requestIds(file)).toEqual([1]);
  });

  it('stops with close(): a pass under way ends, what it deleted stays deleted', async () => {
    const file = join(tempDir('toolwright-retention-'), 'audit.db');
    const fillSink = filler(file);
    await fill(fillSink, 5000, 40 * DAY, 0);
    fillSink.close();
    const sink = new SqliteAuditSink(file, { retention: { maxAgeDays: 30, maxBytes: false } });
    const pass = sink.prune();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    sink.close();
    const partial = await pass;
    expect(partial.byAge).toBeLessThan(5000);
    expect(requestIds(file)).toHaveLength(5000 - partial.byAge);
  });

  it('a failing pass is reported and retried, never thrown at a caller of record()', async () => {
    const file = join(tempDir('toolwright-retention-'), 'audit.db');
    const fillSink = filler(file);
    await fill(fillSink, 10, 40 * DAY, 0);
    fillSink.close();
    // Another process holds the write lock.
    const other = open(file);
    other.exec('BEGIN IMMEDIATE');
    const errors: unknown[] = [];
    const sink = track(new SqliteAuditSink(file, { retention: { maxAgeDays: 30, intervalMs: 10 }, onRetentionError: (err) => errors.push(err) }));
    const pass = sink.prune();
    (sink as unknown as { db: Database }).db.pragma('busy_timeout = 0'); // fail at once instead of waiting 5 s
    await expect(pass).rejects.toThrow(/locked|busy/i);
    const until = Date.now() + 5000;
    while (errors.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(String(errors[0])).toMatch(/locked|busy/i); // the timer's next pass failed too, and said so
    other.exec('COMMIT');
    await sink.record(auditRecord({ requestId: 99 })); // recording works meanwhile
    while (requestIds(file).length > 1 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(requestIds(file)).toEqual([99]);
  });
});

function range(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

// pruneSteps is the unit the background pruner drives; check the steps really are separate.
describe('pruneSteps', () => {
  it('does one bounded piece of work per step', async () => {
    const file = join(tempDir('toolwright-retention-'), 'audit.db');
    const sink = filler(file);
    await fill(sink, 3500, 40 * DAY, 0);
    const db = open(file);
    const steps = pruneSteps(db, { olderThan: new Date(Date.now() - 30 * DAY), returnPages: false });
    const left: number[] = [];
    while (!steps.next().done) left.push(requestIds(file).length);
    expect(left).toEqual([2500, 1500, 500]);
    expect(requestIds(file)).toEqual([]);
  });
});
