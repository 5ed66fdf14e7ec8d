import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { queryAuditLog } from '../../src/audit/query.js';
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
    const file = join(tempDir('toolwright-groups-'), 'audit.db');
    const sink = new SqliteAuditSink(file);
    sinks.push(sink);
    const events: string[] = [];
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: sink,
      tools: [
        {
          name: 'id',
          description: 'x',
          inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
          handler: ({ n }: { n: number }) => (events.push(`call ${n}`), String(n)),
        },
      ],
    });
    const input = new PassThrough();
    const output = new PassThrough();
    serveStdio(server, { input, output });
    let answered = 0;
    const answeredBeforeAudited: number[] = [];
    output.on('data', (chunk: Buffer) => {
      const audited = new Set(queryAuditLog(file).map((r) => r.requestId));
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        const { id } = JSON.parse(line) as { id: number };
        events.push(`answer ${id}`);
        answered++;
        if (!audited.has(id)) answeredBeforeAudited.push(id);
      }
    });
    // One write, as a pipelining client sends them: 20 requests.
    input.write(
      Array.from(
        { length: 20 },
        (_, i) =>
          `${JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'id', arguments: { n: i + 1 }, _meta: modernMeta() } })}\n`,
      ).join(''),
    );
    await expect.poll(() => answered, { timeout: 5_000 }).toBe(20);
    expect(events.indexOf('answer 1')).toBeGreaterThan(events.indexOf('call 1'));
    expect(events.indexOf('answer 1')).toBeLessThan(events.indexOf('call 20'));
    // Every answer, as it arrived, already had its record committed.
    expect(answeredBeforeAudited).toEqual([]);
    expect(
      queryAuditLog(file)
        .map((r) => r.requestId)
        .sort((a, b) => Number(a) - Number(b)),
    ).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('answers everything still waiting when stdin ends mid-burst', async () => {
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [{ name: 'id', description: 'x', inputSchema: { type: 'object' }, handler: () => 'ok' }],
    });
    const input = new PassThrough();
    const output = new PassThrough();
    const handle = serveStdio(server, { input, output });
    let text = '';
    output.on('data', (d) => (text += d));
    input.end(
      Array.from(
        { length: 30 },
        (_, i) => `${JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'id', arguments: {}, _meta: modernMeta() } })}\n`,
      ).join(''),
    );
    await handle.closed;
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).id)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });
});

describe('SqliteAuditSink.flush', () => {
  it('commits the open batch at once and settles its promise, instead of at the end of the turn', async () => {
    const file = join(tempDir('toolwright-flush-'), 'audit.db');
    const sink = new SqliteAuditSink(file);
    sinks.push(sink);
    const done = Promise.all([sink.record(auditRecord({ requestId: 1 })), sink.record(auditRecord({ requestId: 2 }))]);
    expect(queryAuditLog(file)).toEqual([]);
    sink.flush();
    // Committed by flush itself, before the end-of-turn commit could run.
    expect(queryAuditLog(file).map((r) => r.requestId)).toEqual([1, 2]);
    await done;
  });
});
