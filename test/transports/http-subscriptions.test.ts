import { afterEach, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { readSse, startHttp } from '../helpers/http.js';
import { memoryLogger } from '../helpers/wire.js';

let http: Awaited<ReturnType<typeof startHttp>>;
afterEach(() => http?.close());

const newServer = () =>
  new ToolServer({ logger: memoryLogger().logger, tools: [{ name: 'a', description: 'a', inputSchema: { type: 'object' }, handler: () => 'a' }] });

describe('list changes over HTTP', () => {
  it('delivers acknowledgment and tagged changes on a subscriptions/listen SSE stream', async () => {
    const server = newServer();
    http = await startHttp(server);
    const res = await http.modern('subscriptions/listen', { notifications: { toolsListChanged: true } });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    setTimeout(() => server.tools.add({ name: 'b', description: 'b', inputSchema: { type: 'object' }, handler: () => 'b' }), 20);
    const messages = await readSse(res, (m) => m.length >= 2);
    expect(messages.map((m) => m.method)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
    expect(messages.every((m) => m.params._meta['io.modelcontextprotocol/subscriptionId'] !== undefined)).toBe(true);
  });

  it('ends open subscriptions with a completion result when the server closes', async () => {
    http = await startHttp(newServer());
    const res = await http.modern('subscriptions/listen', { notifications: { toolsListChanged: true } });
    setTimeout(() => void http.close(), 20);
    const messages = await readSse(res, (m) => m.some((x) => 'result' in x));
    expect(messages.at(-1)).toMatchObject({ result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': expect.anything() } } });
  });

  it('sends notifications/tools/list_changed on a legacy session GET stream', async () => {
    const server = newServer();
    http = await startHttp(server);
    const sessionId = await http.initialize();
    const stream = await fetch(http.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    setTimeout(() => server.tools.disable('a'), 20);
    const messages = await readSse(stream, (m) => m.length >= 1);
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
  });
});
