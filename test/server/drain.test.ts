import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/record.js';
import { ToolServer } from '../../src/server/server.js';
import type { Tool } from '../../src/server/tool.js';
import { memoryLogger, wire } from '../helpers/wire.js';

/** A tool that answers after `ms` (from its arguments), or when its signal aborts, saying which. */
const slow: Tool = {
  name: 'slow',
  description: 'Waits.',
  inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
  handler: ({ ms }: { ms: number }, ctx) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(`slept ${ms}`), ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        aborted.push(ms);
        resolve('noticed the abort');
      });
    }),
};
let aborted: number[] = [];

function setup(options: ConstructorParameters<typeof ToolServer>[0] = {}) {
  aborted = [];
  const records: AuditRecord[] = [];
  const server = new ToolServer({ logger: memoryLogger().logger, tools: [slow], audit: { record: (r) => void records.push(r) }, ...options });
  return { server, records, ...wire(server) };
}

describe('ToolServer.drain (graceful shutdown)', () => {
  it('lets a call in flight finish and answer, and resolves after it', async () => {
    const { server, modern } = setup();
    const answer = modern('tools/call', { name: 'slow', arguments: { ms: 50 } });
    await new Promise((r) => setTimeout(r, 5));
    expect(server.callsInFlight).toBe(1);
    let drained = false;
    const drain = server.drain(5_000).then(() => (drained = true));
    expect((await answer).result.content[0].text).toBe('slept 50');
    await drain;
    expect([drained, server.callsInFlight, aborted]).toEqual([true, 0, []]);
  });

  it('refuses calls that arrive once it has started, before any other stage', async () => {
    const { server, modern, records } = setup({ limits: { rateLimit: { perTool: { points: 1, durationSeconds: 60 } } } });
    const running = modern('tools/call', { name: 'slow', arguments: { ms: 30 } });
    await new Promise((r) => setTimeout(r, 5));
    const drain = server.drain(5_000);
    const late = await modern('tools/call', { name: 'slow', arguments: { ms: 1 } });
    expect(late.result.isError).toBe(true);
    expect(late.result.content[0].text).toBe('The server is shutting down; slow was not run. Retry in a few seconds (another instance may answer).');
    expect((await running).result.content[0].text).toBe('slept 30');
    await drain;
    expect(records.map((r) => r.status)).toEqual(['refused', 'ok']);
  });

  it('stops a call that outlives the grace: its signal aborts and it is answered with an error, recorded as cancelled', async () => {
    const { server, modern, records } = setup();
    const answer = modern('tools/call', { name: 'slow', arguments: { ms: 60_000 } });
    await new Promise((r) => setTimeout(r, 5));
    await server.drain(30);
    const res = await answer;
    expect(aborted).toEqual([60_000]);
    expect(res.result.isError).toBe(true);
    expect(res.result.content[0].text).toMatch(/^Tool slow was stopped because the server is shutting down/);
    expect(records).toMatchObject([{ tool: 'slow', status: 'cancelled', isError: true }]);
  });

  it('answers a call stopped while it waits for a slot, and one whose handler ignores its signal', async () => {
    const stubborn: Tool = { name: 'stubborn', description: 'x', inputSchema: { type: 'object' }, handler: () => new Promise(() => {}) };
    const { server, modern } = setup({ tools: [slow, stubborn], limits: { maxInFlight: 1 } });
    const first = modern('tools/call', { name: 'stubborn', arguments: {} });
    const queued = modern('tools/call', { name: 'slow', arguments: { ms: 1 } });
    await new Promise((r) => setTimeout(r, 5));
    await server.drain(20);
    for (const res of await Promise.all([first, queued])) expect(res.result.content[0].text).toMatch(/was stopped because the server is shutting down/);
    expect(server.callsInFlight).toBe(0);
  });

  it('still sends nothing for a call its client cancelled', async () => {
    const { server, modern, send, written } = setup();
    void modern('tools/call', { name: 'slow', arguments: { ms: 60_000 } }, {});
    await new Promise((r) => setTimeout(r, 5));
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await server.drain(1_000);
    expect(written).toEqual([]);
  });

  it('is one drain however often it is asked for, and refuses a grace that is not a duration', async () => {
    const { server } = setup();
    expect(server.drain(10)).toBe(server.drain(99));
    expect(() => setup().server.drain(-1)).toThrow(RangeError);
    expect(() => setup().server.drain(Number.NaN)).toThrow(RangeError);
  });
});
