import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDefaultAuditSink, DEFAULT_AUDIT_DB } from '../../src/audit/default-sink.js';
import { FanoutAuditSink } from '../../src/audit/fanout-sink.js';
import { JsonlAuditSink } from '../../src/audit/jsonl-sink.js';
import { queryAuditLog } from '../../src/audit/query.js';
import type { AuditRecord, AuditSink } from '../../src/audit/record.js';
import { openDatabase } from '../../src/audit/sqlite-schema.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { tempDir as makeTempDir } from '../helpers/temp.js';
import { auditRecord } from './records.js';

const tempDir = () => makeTempDir('toolwright-audit-');
const opened: AuditSink[] = [];
afterEach(() => {
  for (const sink of opened.splice(0)) sink.close?.();
});
const track = <T extends AuditSink>(sink: T): T => (opened.push(sink), sink);

describe('the SQLite sink', () => {
  it('creates nothing until the first record, then a WAL database under missing folders', async () => {
    const file = join(tempDir(), 'nested', 'deeper', 'audit.db');
    const sink = track(new SqliteAuditSink(file));
    expect(existsSync(file)).toBe(false);
    await sink.record(auditRecord());
    expect(existsSync(file)).toBe(true);
    const db = openDatabase(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('keeps every field, and string and number request ids apart', async () => {
    const file = join(tempDir(), 'audit.db');
    const sink = track(new SqliteAuditSink(file));
    const first = auditRecord({ requestId: 7, principal: 'alice', correlationId: 'c-1', status: 'internal_error', isError: true });
    const second = auditRecord({
      requestId: '7',
      tool: 'missing',
      status: 'protocol_error',
      errorCode: -32602,
      clientName: null,
      era: 'legacy',
      protocolVersion: '2025-06-18',
    });
    await sink.record(first);
    await sink.record(second);
    expect(queryAuditLog(file)).toEqual([first, second]);
  });

  it('commits the records of one turn together, in order, each value as it was', async () => {
    const file = join(tempDir(), 'audit.db');
    const sink = track(new SqliteAuditSink(file));
    const records = [
      auditRecord({ requestId: 1, durationMs: 2, argumentsJson: '{"q":"a \\"quoted\\" é 😀 \\n line"}' }),
      auditRecord({ requestId: 'two', tool: 'tab\there', principal: null, clientName: null, durationMs: 0.125 }),
      auditRecord({ requestId: 3, status: 'timeout', isError: true, errorCode: null, correlationId: 'c-3' }),
    ];
    await Promise.all(records.map((r) => sink.record(r)));
    expect(queryAuditLog(file)).toEqual(records);
  });

  it('commits a turn of more records than one INSERT binds (in several statements, one transaction) in order', async () => {
    const file = join(tempDir(), 'audit.db');
    const sink = track(new SqliteAuditSink(file));
    const records = Array.from({ length: 37 }, (_, i) => auditRecord({ requestId: i, argumentsJson: `{"i":${i}}` }));
    await Promise.all(records.map((r) => sink.record(r)));
    expect(queryAuditLog(file, { limit: 100 })).toEqual(records);
    // The next turn's batch lands after them.
    await sink.record(auditRecord({ requestId: 'after' }));
    expect(queryAuditLog(file, { limit: 100 }).map((r) => r.requestId)).toEqual([...records.map((r) => r.requestId), 'after']);
  });

  it('keeps the details of a record that has them among records of the same turn that have none', async () => {
    const file = join(tempDir(), 'audit.db');
    const sink = track(new SqliteAuditSink(file));
    const plain = (i: number) => auditRecord({ requestId: i, instance: 'host-a:1' });
    const detailed = (i: number) =>
      auditRecord({
        requestId: i,
        principal: 'alice',
        clientId: 'app',
        scopes: ['read', 'write'],
        tenant: 't1',
        status: 'refused',
        reason: 'rate_limit',
        upstream: 'up',
      });
    // A detailed record after plain ones, then more plain ones; and a turn over one INSERT's rows.
    const turns = [
      [plain(1), plain(2), detailed(3), plain(4)],
      Array.from({ length: 21 }, (_, i) => (i === 19 ? detailed(100 + i) : plain(100 + i))),
      [detailed(200), plain(201)],
    ];
    for (const turn of turns) await Promise.all(turn.map((r) => sink.record(r)));
    expect(queryAuditLog(file, { limit: 100 })).toEqual(turns.flat());
  });

  it('is readable while the writer holds the file open, and by a second writer', async () => {
    const file = join(tempDir(), 'audit.db');
    const a = track(new SqliteAuditSink(file));
    const b = track(new SqliteAuditSink(file));
    await a.record(auditRecord({ tool: 'a' }));
    await b.record(auditRecord({ tool: 'b' }));
    await a.record(auditRecord({ tool: 'c' }));
    expect(queryAuditLog(file).map((r) => r.tool)).toEqual(['a', 'b', 'c']);
  });

  it('refuses a file that is not a database, with an error the caller can log', async () => {
    const file = join(tempDir(), 'audit.db');
    writeFileSync(file, 'this is not sqlite, just text that is long enough to have a header '.repeat(10));
    const sink = track(new SqliteAuditSink(file));
    expect(() => sink.record(auditRecord())).toThrow(/not a database/);
  });

  it('the default sink writes .toolwright/audit.db under the given folder', async () => {
    const dir = tempDir();
    const sink = track(createDefaultAuditSink(dir));
    expect(sink.file).toBe(join(dir, DEFAULT_AUDIT_DB));
    await sink.record(auditRecord());
    expect(existsSync(join(dir, '.toolwright', 'audit.db'))).toBe(true);
    expect(statSync(join(dir, '.toolwright')).mode & 0o777).toBe(0o700);
  });
});

describe('probe: can the trail be written now?', () => {
  it('opens each sink (creating the file), leaves no record, and throws what a record would for a path it cannot write', async () => {
    const dir = tempDir();
    const sqlite = track(new SqliteAuditSink(join(dir, 'a', 'audit.db')));
    const jsonl = track(new JsonlAuditSink(join(dir, 'b', 'audit.jsonl')));
    track(new FanoutAuditSink([sqlite, jsonl])).probe();
    expect(existsSync(join(dir, 'a', 'audit.db')) && existsSync(join(dir, 'b', 'audit.jsonl'))).toBe(true);
    expect(queryAuditLog(join(dir, 'a', 'audit.db'))).toEqual([]);
    await sqlite.record(auditRecord()); // the probe's transaction is over: records still commit
    expect(queryAuditLog(join(dir, 'a', 'audit.db'))).toHaveLength(1);
    // Under a regular file: a real failure even for root, whom permissions do not stop.
    writeFileSync(join(dir, 'file'), '');
    for (const sink of [new SqliteAuditSink(join(dir, 'file', 'audit.db')), new JsonlAuditSink(join(dir, 'file', 'audit.jsonl'))]) {
      expect(() => track(sink).probe()).toThrow(/ENOTDIR|EEXIST/);
    }
  });
});

describe('the JSON-lines sink', () => {
  it('appends one object per line, with the arguments as an object', async () => {
    const file = join(tempDir(), 'logs', 'audit.jsonl');
    const sink = track(new JsonlAuditSink(file));
    const one = auditRecord({ argumentsJson: '{"q":"x","token":"[REDACTED]"}' });
    await sink.record(one);
    await sink.record(auditRecord({ tool: 'two', argumentsJson: '{}' }));
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    const { argumentsJson, ...rest } = one;
    expect(JSON.parse(lines[0])).toEqual({ ...rest, arguments: { q: 'x', token: '[REDACTED]' } });
    expect(JSON.parse(lines[1])).toMatchObject({ tool: 'two', arguments: {} });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('appends to an existing file instead of replacing it', async () => {
    const file = join(tempDir(), 'audit.jsonl');
    writeFileSync(file, '{"earlier":true}\n');
    const sink = track(new JsonlAuditSink(file));
    await sink.record(auditRecord());
    sink.close();
    track(new JsonlAuditSink(file)).record(auditRecord({ tool: 'later' }));
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.tool ?? 'earlier')).toEqual(['earlier', 'echo', 'later']);
  });
});

describe('fanning out to several sinks', () => {
  it('every sink gets the record even when one throws, and the failure is reported after', async () => {
    const got: string[] = [];
    const fanout = new FanoutAuditSink([
      { record: (e) => void got.push(`a:${e.tool}`) },
      {
        record: () => {
          throw new Error('disk full');
        },
      },
      { record: (e) => void got.push(`c:${e.tool}`) },
    ]);
    expect(() => fanout.record(auditRecord())).toThrow('disk full');
    expect(got).toEqual(['a:echo', 'c:echo']);
  });

  it('stays synchronous with synchronous sinks, and waits for asynchronous ones', async () => {
    const got: string[] = [];
    const sync = new FanoutAuditSink([{ record: () => void got.push('sync') }]);
    expect(sync.record(auditRecord())).toBeUndefined();
    const slow: AuditSink = { record: () => new Promise<void>((resolve) => setTimeout(() => (got.push('slow'), resolve()), 20)) };
    const failing: AuditSink = { record: () => Promise.reject(new Error('remote down')) };
    const mixed = new FanoutAuditSink([slow, failing, { record: () => void got.push('fast') }]);
    await expect(mixed.record(auditRecord())).rejects.toThrow('remote down');
    expect(got).toEqual(['sync', 'fast', 'slow']);
  });

  it('writes the same record to SQLite and JSON lines, and closes both', async () => {
    const dir = tempDir();
    const fanout = new FanoutAuditSink([new SqliteAuditSink(join(dir, 'a.db')), new JsonlAuditSink(join(dir, 'a.jsonl'))]);
    const entry: AuditRecord = auditRecord({ tool: 'both' });
    fanout.record(entry);
    fanout.close();
    expect(queryAuditLog(join(dir, 'a.db'))).toEqual([entry]);
    expect(JSON.parse(readFileSync(join(dir, 'a.jsonl'), 'utf8'))).toMatchObject({ tool: 'both' });
  });
});
