import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuditLogMissingError, parseSince, queryAuditLog } from '../../src/audit/query.js';
import { openDatabase } from '../../src/audit/sqlite-schema.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { sharedTempDir, tempDir } from '../helpers/temp.js';
import { auditRecord } from './records.js';

const NOW = new Date('2026-07-28T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
let file: string;

beforeAll(async () => {
  const temp = sharedTempDir('toolwright-audit-');
  file = join(temp.dir, 'audit.db');
  const sink = new SqliteAuditSink(file);
  await sink.record(auditRecord({ time: ago(3 * 86_400_000), tool: 'old', requestId: 1 }));
  await sink.record(auditRecord({ time: ago(2 * 3_600_000), tool: 'echo', requestId: 2 }));
  await sink.record(auditRecord({ time: ago(40 * 60_000), tool: 'echo', status: 'tool_error', isError: true, requestId: 3 }));
  await sink.record(auditRecord({ time: ago(20 * 60_000), tool: 'nope', status: 'protocol_error', errorCode: -32602, requestId: 4 }));
  await sink.record(auditRecord({ time: ago(10 * 60_000), tool: 'echo', status: 'cancelled', requestId: 5 }));
  await sink.record(auditRecord({ time: ago(1_000), tool: 'echo', status: 'timeout', isError: true, requestId: 6 }));
  sink.close();
  return temp.remove;
});

const ids = (records: { requestId: unknown }[]) => records.map((r) => r.requestId);

describe('querying the audit log', () => {
  it('returns every record oldest first by default', () => {
    expect(ids(queryAuditLog(file))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('filters by tool, by time, and to errors (isError results and protocol errors)', () => {
    expect(ids(queryAuditLog(file, { tool: 'echo' }))).toEqual([2, 3, 5, 6]);
    expect(ids(queryAuditLog(file, { since: parseSince('1h', NOW) }))).toEqual([3, 4, 5, 6]);
    expect(ids(queryAuditLog(file, { errorsOnly: true }))).toEqual([3, 4, 6]);
    expect(ids(queryAuditLog(file, { tool: 'echo', since: parseSince('30m', NOW), errorsOnly: true }))).toEqual([6]);
  });

  it('a limit keeps the newest matches, still oldest first', () => {
    expect(ids(queryAuditLog(file, { limit: 2 }))).toEqual([5, 6]);
    expect(() => queryAuditLog(file, { limit: 0 })).toThrow(RangeError);
  });

  it('a missing file is an AuditLogMissingError and is not created', () => {
    const missing = join(tmpdir(), 'toolwright-no-such-dir', 'audit.db');
    expect(() => queryAuditLog(missing)).toThrow(AuditLogMissingError);
  });

  it('an empty database without the table yields no records', () => {
    const empty = join(tempDir('toolwright-audit-'), 'empty.db');
    openDatabase(empty).close();
    expect(queryAuditLog(empty)).toEqual([]);
  });

  it('treats tool names as data, not SQL', () => {
    expect(queryAuditLog(file, { tool: "echo' OR '1'='1" })).toEqual([]);
  });
});

describe('--since values', () => {
  it.each([
    ['30s', 30_000],
    ['30m', 30 * 60_000],
    ['1h', 3_600_000],
    ['2d', 2 * 86_400_000],
    ['1w', 7 * 86_400_000],
    ['2H', 2 * 3_600_000],
  ])('%s is that long before now', (text, ms) => expect(parseSince(text, NOW)?.getTime()).toBe(NOW.getTime() - ms));

  it('accepts ISO dates and times', () => {
    expect(parseSince('2026-07-28T10:00:00Z', NOW)?.toISOString()).toBe('2026-07-28T10:00:00.000Z');
    expect(parseSince('2026-07-28T12:00:00+02:00', NOW)?.toISOString()).toBe('2026-07-28T10:00:00.000Z');
    expect(parseSince('2026-07-01', NOW)?.toISOString()).toBe('2026-07-01T00:00:00.000Z');
  });

  it.each(['', 'yesterday', '1', '5y', '-1h', '1.5h', '2026-13-45', 'May 1'])('rejects %j', (text) => expect(parseSince(text, NOW)).toBeUndefined());
});
