import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { queryAuditLog } from '../../src/audit/query.js';
import type { AuditSink } from '../../src/audit/record.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { ToolServer } from '../../src/server/server.js';
import { serveStdio } from '../../src/transports/stdio-server.js';
import { auditRecord } from '../audit/records.js';
import { tempDir } from '../helpers/temp.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';

const sinks: SqliteAuditSink[] = [];
afterEach(() => {
  for (const sink of sinks.splice(0)) sink.close();
});

describe('stdio: a pipelined burst is answered group by group', () => {
  it('writes the first answers, each already in the audit trail, before it handles the rest', async () => {
    // A sink that commits when the transport flushes it after a group (synchronously, as the
    // writer thread's acknowledgement would come at once), so the grouping itself is what is seen.
    const events: string[] = [];
    const committed = new Set<unknown>();
    let open: { ids: unknown[]; done: Promise<void>; settle: () => void } | undefined;
    const sink: AuditSink = {
      record(entry) {
        if (!open) {
          let settle!: () => void;
          const done = new Promise<void>((resolve) => (settle = resolve));
          open = { ids: [], done, settle };
        }
        open.ids.push(entry.requestId);
        return open.done;
      },
      flush() {
        const batch = open;
        open = undefined;
        for (const id of batch?.ids ?? []) committed.add(id);
        batch?.settle();
      },
    };
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: sink,
      tools: [{ name: 'id', description: 'x', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, handler: ({ n }: { n: number }) => (events.push(`call ${n}`), String(n)) }],
    });
    const { answered, answeredBeforeAudited } = burst(server, events, () => committed);
    await expect.poll(() => answered(), { timeout: 5_000 }).toBe(20);
    expect(events.indexOf('answer 1')).toBeGreaterThan(events.indexOf('call 1'));
    expect(events.indexOf('answer 1')).toBeLessThan(events.indexOf('call 20'));
    expect(answeredBeforeAudited).toEqual([]);
  });

  it('with the SQLite trail (commits on its writer thread), writes each answer only after its record is committed', async () => {
    const file = join(tempDir('toolwright-groups-'), 'audit.db');
    const sink = new SqliteAuditSink(file);
    sinks.push(sink);
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: sink,
      tools: [{ name: 'id', description: 'x', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, handler: ({ n }: { n: number }) => String(n) }],
    });
    const { answered, answeredBeforeAudited } = burst(server, [], () => new Set(queryAuditLog(file).map((r) => r.requestId)));
    await expect.poll(() => answered(), { timeout: 5_000 }).toBe(20);
    // Every answer, as it arrived, already had its record committed.
    expect(answeredBeforeAudited).toEqual([]);
    expect(queryAuditLog(file).map((r) => r.requestId).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('answers everything still waiting when stdin ends mid-burst', async () => {
    const server = new ToolServer({ logger: memoryLogger().logger, audit: false, tools: [{ name: 'id', description: 'x', inputSchema: { type: 'object' }, handler: () => 'ok' }] });
    const input = new PassThrough();
    const output = new PassThrough();
    const handle = serveStdio(server, { input, output });
    let text = '';
    output.on('data', (d) => (text += d));
    input.end(Array.from({ length: 30 }, (_, i) => `${JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'id', arguments: {}, _meta: modernMeta() } })}\n`).join(''));
    await handle.closed;
    expect(text.split('\n').filter(Boolean).map((l) => JSON.parse(l).id).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });
});

describe('SqliteAuditSink.flush', () => {
  it('sends the open batch at once: its promise settles once it is committed, and later records form a new batch', async () => {
    const file = join(tempDir('toolwright-flush-'), 'audit.db');
    const sink = new SqliteAuditSink(file);
    sinks.push(sink);
    const first = sink.record(auditRecord({ requestId: 1 }));
    expect(sink.record(auditRecord({ requestId: 2 }))).toBe(first); // one batch per turn
    expect(queryAuditLog(file)).toEqual([]);
    sink.flush();
    const second = sink.record(auditRecord({ requestId: 3 }));
    expect(second).not.toBe(first);
    await first;
    expect(queryAuditLog(file).map((r) => r.requestId).slice(0, 2)).toEqual([1, 2]);
    await second;
    expect(queryAuditLog(file).map((r) => r.requestId)).toEqual([1, 2, 3]);
  });
});

/** Sends 20 pipelined calls in one write; records each answer's id, and those not yet committed when it arrived. */
function burst(server: ToolServer, events: string[], committedIds: () => Set<unknown>) {
  const input = new PassThrough();
  const output = new PassThrough();
  serveStdio(server, { input, output });
  let answered = 0;
  const answeredBeforeAudited: number[] = [];
  output.on('data', (chunk: Buffer) => {
    const audited = committedIds();
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      const { id } = JSON.parse(line) as { id: number };
      events.push(`answer ${id}`);
      answered++;
      if (!audited.has(id)) answeredBeforeAudited.push(id);
    }
  });
  input.write(Array.from({ length: 20 }, (_, i) => `${JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'id', arguments: { n: i + 1 }, _meta: modernMeta() } })}\n`).join(''));
  return { answered: () => answered, answeredBeforeAudited };
}
