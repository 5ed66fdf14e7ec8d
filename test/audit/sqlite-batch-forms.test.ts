import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/record.js';
import { queryAuditLog } from '../../src/audit/query.js';
import { openDatabase } from '../../src/audit/sqlite-schema.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { tempDir } from '../helpers/temp.js';
import { auditRecord } from './records.js';

// Records handed over in one turn are committed together, in the INSERT form the batch allows
// (src/audit/sqlite-rows.ts): a uniform batch binds what its rows share once. Whatever the form,
// each row reads back as its own record, in order.

/** Hands every record over in one turn, awaits the one commit, and reads the trail back. */
async function roundTrip(records: AuditRecord[]): Promise<AuditRecord[]> {
  const file = join(tempDir('tw-audit-batch-'), 'audit.db');
  const sink = new SqliteAuditSink(file, { retention: false });
  await Promise.all(records.map((record) => sink.record(record)));
  sink.close();
  return queryAuditLog(file);
}

/** A run of calls of one tool by one client, each its own time, arguments, duration and id. */
function callsOfOneTool(count: number, overrides: Partial<AuditRecord> = {}): AuditRecord[] {
  return Array.from({ length: count }, (_, i) =>
    auditRecord({
      time: new Date(Date.UTC(2026, 10, 30, 1, 0, 0, i)).toISOString(),
      argumentsJson: JSON.stringify({ a: i, b: 2 }),
      durationMs: i + 0.5,
      requestId: i % 2 ? `id-${i}` : i,
      correlationId: i % 3 ? null : `corr-${i}`,
      instance: 'node-a',
      ...overrides,
    }),
  );
}

describe('the SQLite trail, a batch at a time', () => {
  it('a run of calls of one tool, more than one INSERT holds, reads back row by row', async () => {
    const records = callsOfOneTool(37);
    expect(await roundTrip(records)).toEqual(records);
  });

  it('a request id keeps its type: 1 and "1" are different ids', async () => {
    const records = [auditRecord({ requestId: 1 }), auditRecord({ requestId: '1' })];
    expect((await roundTrip(records)).map((r) => r.requestId)).toEqual([1, '1']);
  });

  // Each change alone, in a batch otherwise alike: the row that differs keeps its value.
  it.each([
    { tool: 'other_tool' },
    { status: 'invalid_arguments' },
    { reason: 'validation' },
    { isError: true },
    { errorCode: -32602 },
    { principal: 'alice' },
    { clientName: null },
    { clientName: 'another-client' },
    { instance: 'node-b' },
    { instance: undefined },
    { era: 'legacy' },
    { protocolVersion: '2025-11-25' },
    { method: 'prompts/get' },
  ] satisfies Partial<AuditRecord>[])('a row that differs from its batch in %o keeps its own value', async (change) => {
    const records = callsOfOneTool(3);
    records[2] = { ...records[2], ...change };
    if ('instance' in change && change.instance === undefined) delete records[2].instance;
    expect(await roundTrip(records)).toEqual(records);
  });

  it('reads of a template, each its own URI, keep each row its own target', async () => {
    const records = callsOfOneTool(20).map((record, i) => ({ ...record, method: 'resources/read', tool: `sum://${i}/2` }));
    expect(await roundTrip(records)).toEqual(records);
  });

  it('a batch with a record of caller details keeps them on that row alone', async () => {
    const records = callsOfOneTool(5);
    records[3] = { ...records[3], principal: 'alice', clientId: 'app-1', scopes: ['tools:call', 'files:read'], tenant: 'acme' };
    expect(await roundTrip(records)).toEqual(records);
  });

  it('a run of another method keeps the method; a tool call reads back without one', async () => {
    const prompts = callsOfOneTool(4, { method: 'prompts/get', tool: 'summarise' });
    const rows = await roundTrip([...prompts, ...callsOfOneTool(2)]);
    expect(rows.map((r) => r.method)).toEqual(['prompts/get', 'prompts/get', 'prompts/get', 'prompts/get', undefined, undefined]);
  });

  it('a tool call row stores the method tools/call, as a row written by any earlier version does', async () => {
    const file = join(tempDir('tw-audit-batch-'), 'audit.db');
    const sink = new SqliteAuditSink(file, { retention: false });
    await Promise.all(callsOfOneTool(3).map((record) => sink.record(record)));
    sink.close();
    const db = openDatabase(file, { readonly: true });
    try {
      expect(db.prepare('SELECT method, instance, is_error FROM audit').all()).toEqual(
        Array(3).fill({ method: 'tools/call', instance: 'node-a', is_error: 0 }),
      );
    } finally {
      db.close();
    }
  });

  it('records committed one at a time (batch: false) read back alike', async () => {
    const file = join(tempDir('tw-audit-batch-'), 'audit.db');
    const sink = new SqliteAuditSink(file, { retention: false, batch: false });
    const records = callsOfOneTool(3);
    for (const record of records) await sink.record(record);
    sink.close();
    expect(queryAuditLog(file)).toEqual(records);
  });
});
