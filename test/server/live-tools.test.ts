import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import type { Tool } from '../../src/server/tool.js';
import { memoryLogger, wire } from '../helpers/wire.js';

const tool = (name: string, description = `the ${name} tool`): Tool => ({ name, description, inputSchema: { type: 'object' }, handler: () => name });
const tick = () => new Promise((r) => setTimeout(r, 10));

function setup() {
  const server = new ToolServer({ logger: memoryLogger().logger, tools: [tool('a'), tool('b'), tool('c')] });
  return { server, ...wire(server) };
}

describe('changing tools at run time', () => {
  it('disables and enables: a disabled tool is neither listed nor callable', async () => {
    const { server, modern } = setup();
    expect(server.tools.disable('b')).toBe(true);
    expect((await modern('tools/list')).result.tools.map((t: { name: string }) => t.name)).toEqual(['a', 'c']);
    expect((await modern('tools/call', { name: 'b', arguments: {} })).error).toMatchObject({ code: -32602, message: 'Unknown tool: b' });
    server.tools.enable('b');
    expect((await modern('tools/list')).result.tools.map((t: { name: string }) => t.name)).toEqual(['a', 'b', 'c']);
  });

  it('updates a tool in place and refuses renames and unknown names', async () => {
    const { server, modern } = setup();
    server.tools.update('b', { description: 'better b' });
    const tools = (await modern('tools/list')).result.tools;
    expect(tools.map((t: { name: string }) => t.name)).toEqual(['a', 'b', 'c']);
    expect(tools[1].description).toBe('better b');
    expect(() => server.tools.update('b', { name: 'z' })).toThrow(/cannot rename/);
    expect(() => server.tools.update('nope', {})).toThrow(/no tool/);
  });

  it('declares listChanged', async () => {
    expect((await setup().modern('server/discover')).result.capabilities.tools).toEqual({ listChanged: true });
  });
});

describe('subscriptions/listen (modern)', () => {
  it('acknowledges first, then sends tagged list changes, coalescing one tick of changes', async () => {
    const { server, send, written } = setup();
    send({
      jsonrpc: '2.0',
      id: 'sub-1',
      method: 'subscriptions/listen',
      params: {
        notifications: { toolsListChanged: true, unheardOfListChanged: true },
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    });
    expect(written[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' }, notifications: { toolsListChanged: true } },
    });
    server.tools.add(tool('d'));
    server.tools.remove('a');
    await tick();
    const changes = written.filter((m) => m.method === 'notifications/tools/list_changed');
    expect(changes).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } } },
    ]);
  });

  it('sends nothing the client did not ask for', async () => {
    const { server, send, written } = setup();
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'subscriptions/listen',
      params: { notifications: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    });
    server.tools.add(tool('d'));
    await tick();
    expect(written.map((m) => m.method)).toEqual(['notifications/subscriptions/acknowledged']);
  });

  it('ends without a response when cancelled, and with a tagged result when the server closes', async () => {
    const { server, send, written } = setup();
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    send({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta } });
    send({ jsonrpc: '2.0', id: 2, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta } });
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await tick();
    server.close();
    await tick();
    expect(written.filter((m) => 'id' in m)).toEqual([
      {
        jsonrpc: '2.0',
        id: 2,
        result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 2, 'io.modelcontextprotocol/serverInfo': expect.any(Object) } },
      },
    ]);
    server.tools.add(tool('late'));
    await tick();
    expect(written.filter((m) => m.method === 'notifications/tools/list_changed')).toEqual([]);
  });

  it('refuses a listen without a notifications filter', async () => {
    expect((await setup().modern('subscriptions/listen', {})).error.code).toBe(-32602);
  });
});

describe('legacy list-change notifications', () => {
  it('tells an initialized legacy connection that the list changed', async () => {
    const { server, initialize, written } = setup();
    await initialize();
    server.tools.disable('a');
    await tick();
    expect(written.filter((m) => m.method === 'notifications/tools/list_changed')).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
  });
});
