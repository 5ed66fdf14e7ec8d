import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import type { Tool } from '../../src/server/tool.js';
import { memoryLogger, MODERN, wire } from '../helpers/wire.js';

const tools = (n: number): Tool[] =>
  Array.from({ length: n }, (_, i) => ({ name: `tool_${i}`, description: `tool ${i}`, inputSchema: { type: 'object' }, handler: () => String(i) }));

const setup = (n = 3, options: { pageSize?: number } = {}) =>
  wire(new ToolServer({ name: 'disp', version: '9.9.9', logger: memoryLogger().logger, tools: tools(n), ...options }));

describe('modern era (2026-07-28)', () => {
  it('answers server/discover with versions, capabilities, identity and cache hints', async () => {
    const res = await setup().modern('server/discover');
    expect(res.result).toEqual({
      resultType: 'complete',
      supportedVersions: [MODERN],
      // objectContaining: modules plugged in later (tasks) add their own members.
      capabilities: expect.objectContaining({
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
      }),
      ttlMs: 300000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'disp', version: '9.9.9' } },
    });
  });

  it('rejects requests without the required _meta fields with -32602', async () => {
    const w = setup();
    const bare = await w.request('tools/list', {});
    expect(bare.error.code).toBe(-32602);
    expect(bare.error.message).toMatch(/a client of protocol 2025-11-25 or earlier sends initialize first/);
    expect((await w.request('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } })).error.message).toMatch(/clientCapabilities/);
    expect((await w.request('tools/list', { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } })).error.message).toMatch(/protocolVersion/);
  });

  it('rejects an unknown version with -32022 listing what it supports and echoing the request', async () => {
    const res = await setup().request('tools/list', {
      _meta: { 'io.modelcontextprotocol/protocolVersion': 'v999', 'io.modelcontextprotocol/clientCapabilities': {} },
    });
    expect(res.error.code).toBe(-32022);
    expect(res.error.data.requested).toBe('v999');
    expect(res.error.data.supported).toContain(MODERN);
  });

  it.each(['ping', 'logging/setLevel', 'initialize', 'resources/subscribe', 'resources/unsubscribe', 'no/such'])('answers %s with -32601', async (method) => {
    expect((await setup().modern(method)).error.code).toBe(-32601);
  });

  it('pages tools/list with opaque cursors in a deterministic order', async () => {
    const w = setup(5, { pageSize: 2 });
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await w.modern('tools/list', cursor ? { cursor } : {});
      expect(res.result).toMatchObject({ resultType: 'complete', ttlMs: 300000, cacheScope: 'public' });
      names.push(...res.result.tools.map((t: { name: string }) => t.name));
      cursor = res.result.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(names).toEqual(['tool_0', 'tool_1', 'tool_2', 'tool_3', 'tool_4']);
  });

  it('rejects a cursor it did not mint with -32602', async () => {
    expect((await setup().modern('tools/list', { cursor: 'forged' })).error.code).toBe(-32602);
  });

  it('serves the same bytes for a list until the tools change', async () => {
    const server = new ToolServer({ logger: memoryLogger().logger, tools: tools(2) });
    const w = wire(server);
    const first = await w.modern('tools/list');
    expect((await w.modern('tools/list')).result).toEqual(first.result);
    server.tools.add(...tools(3).slice(2));
    expect((await w.modern('tools/list')).result.tools).toHaveLength(3);
  });
});

describe('legacy era (initialize handshake)', () => {
  it('negotiates the requested version when supported, else the latest', async () => {
    expect((await setup().initialize('2025-06-18')).result.protocolVersion).toBe('2025-06-18');
    const res = await setup().initialize('2024-01-01');
    expect(res.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'disp', version: '9.9.9' }, capabilities: { tools: {} } });
  });

  it('serves ping, tools/list without resultType, and logging/setLevel', async () => {
    const w = setup(2);
    await w.initialize();
    expect((await w.request('ping')).result).toEqual({});
    const list = await w.request('tools/list');
    expect(list.result.resultType).toBeUndefined();
    expect(list.result.tools).toHaveLength(2);
    expect((await w.request('logging/setLevel', { level: 'warning' })).result).toEqual({});
    expect((await w.request('logging/setLevel', { level: 'loud' })).error.code).toBe(-32602);
  });

  it('refuses a second initialize on the same connection', async () => {
    const w = setup();
    await w.initialize();
    expect((await w.initialize()).error.code).toBe(-32600);
  });

  it('still serves modern requests on an initialized connection', async () => {
    const w = setup();
    await w.initialize();
    expect((await w.modern('tools/list')).result.resultType).toBe('complete');
  });

  it('cancels an in-flight call on notifications/cancelled and sends no response', async () => {
    let aborted = false;
    const server = new ToolServer({ logger: memoryLogger().logger });
    server.tools.add({
      name: 'wait',
      description: 'x',
      inputSchema: { type: 'object' },
      handler: (_a, ctx) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve('late');
          }),
        ),
    });
    const w = wire(server);
    await w.initialize();
    w.send({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'wait', arguments: {} } });
    await new Promise((r) => setTimeout(r, 10));
    w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'user' } });
    await new Promise((r) => setTimeout(r, 20));
    expect(aborted).toBe(true);
    expect(w.written.some((m) => m.id === 'c1')).toBe(false);
  });
});

describe('malformed input', () => {
  it('answers garbage with a parse error and keeps serving', async () => {
    const w = setup();
    w.raw('{not json');
    expect(w.written[0]).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the message is not valid JSON' } });
    expect((await w.modern('tools/list')).result).toBeDefined();
  });
});
