import { describe, expect, it } from 'vitest';
import type { ClientNotification } from '../../src/index.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool, type ToolContext } from '../../src/server/tool.js';
import { startHttp } from '../helpers/http.js';
import { abortableSleep } from '../helpers/tasks.js';
import { memoryLogger, modernMeta, wire } from '../helpers/wire.js';

/** server.onClientNotification: the one hook that sees what clients notify, in both eras, before the server acts. */
function observedServer(logger = memoryLogger().logger) {
  const seen: ClientNotification[] = [];
  const slow = defineTool({
    name: 'slow',
    description: 'd',
    inputSchema: { type: 'object' },
    handler: async (_args, ctx: ToolContext) => {
      await abortableSleep(60_000, ctx.signal);
      return 'late';
    },
  });
  const server = new ToolServer({ tools: [slow], audit: false, logger });
  const undo = server.onClientNotification((n) => seen.push(n));
  return { server, seen, undo };
}

describe('server.onClientNotification', () => {
  it('sees initialized, roots changed and cancelled from a legacy client, and the cancellation still stops the call', async () => {
    const { server, seen } = observedServer();
    const w = wire(server);
    await w.initialize();
    w.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    const call = w.request('tools/call', { name: 'slow', arguments: {} }, 'call-1');
    await new Promise((r) => setTimeout(r, 20));
    w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'call-1', reason: 'user stopped it' } });
    await expect.poll(() => seen.length).toBe(3);
    expect(seen.map((n) => [n.method, n.era, n.caller.id, n.transport])).toEqual([
      ['notifications/initialized', 'legacy', 'anonymous', 'memory'],
      ['notifications/roots/list_changed', 'legacy', 'anonymous', 'memory'],
      ['notifications/cancelled', 'legacy', 'anonymous', 'memory'],
    ]);
    expect(seen[2].params).toEqual({ requestId: 'call-1', reason: 'user stopped it' });
    // Cancelled: no answer comes, and the server holds no call.
    expect(await Promise.race([call.then(() => 'answered'), new Promise((r) => setTimeout(() => r('no answer'), 200))])).toBe('no answer');
    await expect(server.drain(1_000)).resolves.toBeUndefined();
    server.close();
  });

  it('says a modern notification is modern, names the authenticated caller over HTTP, and stops after undo', async () => {
    const { server, seen, undo } = observedServer();
    const http = await startHttp(server, { authenticate: () => 'alice' });
    try {
      const notify = (method: string) =>
        fetch(http.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28' },
          body: JSON.stringify({ jsonrpc: '2.0', method, params: { requestId: 'x', _meta: modernMeta() } }),
        });
      expect((await notify('notifications/cancelled')).status).toBe(202);
      expect(seen.map((n) => [n.method, n.era, n.caller.id, n.transport])).toEqual([['notifications/cancelled', 'modern', 'alice', 'http']]);
      undo();
      await notify('notifications/cancelled');
      expect(seen).toHaveLength(1);
    } finally {
      await http.close();
      server.close();
    }
  });

  it('logs an observer that throws and still tells the others', async () => {
    const logs = memoryLogger();
    const { server, seen } = observedServer(logs.logger);
    server.onClientNotification(() => {
      throw new Error('observer bug');
    });
    const later: string[] = [];
    server.onClientNotification((n) => later.push(n.method));
    const w = wire(server);
    await w.initialize();
    expect(seen.map((n) => n.method)).toEqual(['notifications/initialized']);
    expect(later).toEqual(['notifications/initialized']);
    expect(JSON.stringify(logs.records)).toContain('a client-notification observer threw');
    server.close();
  });
});
