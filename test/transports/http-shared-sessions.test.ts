import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { InProcessEventBus } from '../../src/state/bus.js';
import { InMemorySessionRecords } from '../../src/state/sessions.js';
import { startHttp } from '../helpers/http.js';
import { until } from '../helpers/until.js';
import { memoryLogger } from '../helpers/wire.js';

/**
 * Two HTTP endpoints (two "instances") sharing legacy session records and a bus, in one process
 * (the Redis implementations: test/state/bus.test.ts; real processes behind nginx: test/scale-out).
 */
const tokens: Record<string, string> = { 'Bearer alice-token': 'alice', 'Bearer bob-token': 'bob' };
const authenticate = (req: IncomingMessage) => tokens[req.headers.authorization ?? ''];
let closers: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
});

async function pair(sessionRecords: InMemorySessionRecords = new InMemorySessionRecords()) {
  const bus = new InProcessEventBus();
  const make = () =>
    new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tasks: false,
      sessionRecords,
      bus,
      tools: [{ name: 'whoami', description: 'Names the caller.', inputSchema: { type: 'object' }, handler: (_a, ctx) => ctx.principal ?? 'anonymous' }],
    });
  const one = await startHttp(make(), { authenticate });
  const two = await startHttp(make(), { authenticate });
  closers.push(
    () => one.close(),
    () => two.close(),
  );
  return { one, two, sessionRecords };
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('legacy sessions shared between instances', () => {
  it("another instance serves the session to the caller who opened it, in the session's version; to another caller it does not exist", async () => {
    const { one, two } = await pair();
    const init = await one.post(initialize, { authorization: 'Bearer alice-token' });
    const sessionId = init.headers.get('mcp-session-id')!;
    // Bob first: a failed attempt must not resume the session for anyone on that instance.
    expect((await two.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': sessionId, authorization: 'Bearer bob-token' })).status).toBe(404);
    expect((await two.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': sessionId })).status).toBe(401);
    const asAlice = await two.post(
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      { 'mcp-session-id': sessionId, authorization: 'Bearer alice-token' },
    );
    expect(asAlice.status).toBe(200);
    expect((await asAlice.json()).result.content[0].text).toBe('alice');
    expect((await two.post({ jsonrpc: '2.0', id: 4, method: 'ping' }, { 'mcp-session-id': sessionId, authorization: 'Bearer bob-token' })).status).toBe(404);
  });

  it('DELETE through one instance ends the session on the other, which had resumed it', async () => {
    const { one, two } = await pair();
    const sessionId = (await one.post(initialize, { authorization: 'Bearer alice-token' })).headers.get('mcp-session-id')!;
    const as = { 'mcp-session-id': sessionId, authorization: 'Bearer alice-token' };
    expect((await two.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, as)).status).toBe(200);
    expect((await fetch(one.url, { method: 'DELETE', headers: as })).status).toBe(200);
    expect((await two.post({ jsonrpc: '2.0', id: 3, method: 'ping' }, as)).status).toBe(404);
    expect((await one.post({ jsonrpc: '2.0', id: 4, method: 'ping' }, as)).status).toBe(404);
  });

  it('DELETE is answered only once the shared record is gone: the other instance never serves a session whose DELETE was answered', async () => {
    // Deleting takes a round trip to the shared store (Redis): here it waits until the test lets it finish.
    let deleteCalled = false;
    let finishDelete!: () => void;
    const gate = new Promise<void>((resolve) => (finishDelete = resolve));
    class SlowDelete extends InMemorySessionRecords {
      override async delete(id: string): Promise<void> {
        deleteCalled = true;
        await gate;
        await super.delete(id);
      }
    }
    const { one, two } = await pair(new SlowDelete());
    const sessionId = (await one.post(initialize, { authorization: 'Bearer alice-token' })).headers.get('mcp-session-id')!;
    const as = { 'mcp-session-id': sessionId, authorization: 'Bearer alice-token' };
    let deleteAnswered = false;
    const deletion = fetch(one.url, { method: 'DELETE', headers: as }).then((res) => ((deleteAnswered = true), res));
    await until(() => deleteCalled, 'the DELETE to reach the shared records');
    // The record is still there: the other instance still serves the session, so the DELETE must not have been answered yet.
    expect((await two.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, as)).status).toBe(200);
    expect(deleteAnswered).toBe(false);
    finishDelete();
    expect((await deletion).status).toBe(200);
    expect((await two.post({ jsonrpc: '2.0', id: 3, method: 'ping' }, as)).status).toBe(404);
  });
});
