import { afterEach, describe, expect, it } from 'vitest';
import type { WireDirection, WireListener } from '../../src/client.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { createInMemoryPair, type InMemoryPair } from '../../src/testing.js';

/**
 * Issue 35: the client's wire tap (onWireMessage) sees every JSON-RPC message both ways, and
 * the protocol debugger's two session settings: the log level (legacy logging/setLevel,
 * modern per-request _meta) and the roots list_changed notification.
 */
function buildServer() {
  const server = new ToolServer({ name: 'tap', version: '1.0.0', logger: createLogger('silent') });
  server.addTool({
    name: 'shout',
    description: 'Logs, then answers',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    handler: ({ text }, ctx) => {
      ctx.log('info', `shouting ${String(text)}`);
      ctx.log('debug', 'a detail');
      return String(text).toUpperCase();
    },
  });
  return server;
}

type Seen = Array<{ direction: WireDirection; method?: string; kind: string; message: Record<string, unknown> }>;

function recorder(): { seen: Seen; listener: WireListener } {
  const seen: Seen = [];
  const listener: WireListener = (direction, message) => {
    const m = message as unknown as Record<string, unknown>;
    const kind = 'method' in m ? ('id' in m ? 'request' : 'notification') : 'error' in m ? 'error' : 'result';
    seen.push({ direction, kind, message: m, ...(typeof m.method === 'string' ? { method: m.method } : {}) });
  };
  return { seen, listener };
}

let pair: InMemoryPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

describe('the wire tap and the debugger settings', () => {
  it('sees the legacy handshake, a call and its result, and the log level asked with logging/setLevel', async () => {
    const { seen, listener } = recorder();
    const logs: unknown[] = [];
    pair = await createInMemoryPair(buildServer(), { era: 'legacy', onWireMessage: listener, onLog: (m) => logs.push(m.data) });
    expect(seen.filter((s) => s.direction === 'sent').map((s) => s.method)).toEqual(['initialize', 'notifications/initialized']);
    expect(seen.find((s) => s.direction === 'received')?.kind).toBe('result');

    await pair.client.setLogLevel('info');
    const setLevel = seen.find((s) => s.method === 'logging/setLevel');
    expect(setLevel?.message.params).toEqual({ level: 'info' });

    seen.length = 0;
    expect((await pair.client.callTool('shout', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'HI' }]);
    const call = seen.find((s) => s.method === 'tools/call');
    expect(call).toMatchObject({ direction: 'sent', kind: 'request', message: { params: { name: 'shout', arguments: { text: 'hi' } } } });
    const result = seen.find((s) => s.kind === 'result' && s.message.id === call?.message.id);
    expect(result?.direction).toBe('received');
    expect(seen.some((s) => s.direction === 'received' && s.method === 'notifications/message')).toBe(true);
    // info and above only: the debug line is not sent.
    expect(logs).toEqual(['shouting hi']);
  });

  it('carries a modern level in each request _meta (no request of its own), and receives the call log messages', async () => {
    const { seen, listener } = recorder();
    const logs: unknown[] = [];
    pair = await createInMemoryPair(buildServer(), { era: 'modern', onWireMessage: listener, onLog: (m) => logs.push(m.data) });
    await pair.client.callTool('shout', { text: 'before' });
    expect(logs).toEqual([]);
    seen.length = 0;
    await pair.client.setLogLevel('debug');
    expect(seen).toEqual([]);
    await pair.client.callTool('shout', { text: 'after' });
    const call = seen.find((s) => s.method === 'tools/call');
    expect(call?.message.params).toMatchObject({ _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } });
    expect(logs).toEqual(['shouting after', 'a detail']);
    await expect(pair.client.setLogLevel('loud' as 'info')).rejects.toThrow(/must be one of debug, info/);
  });

  it('tells a legacy server the roots changed only when roots.listChanged was declared', async () => {
    const { seen, listener } = recorder();
    const roots = { roots: [{ uri: 'file:///work' }] };
    pair = await createInMemoryPair(buildServer(), {
      era: 'legacy',
      onWireMessage: listener,
      capabilities: { roots: { listChanged: true } },
      inputCapabilities: ['roots'],
      onInputRequest: () => roots,
    });
    expect(await pair.client.notifyRootsChanged()).toBe(true);
    expect(seen.at(-1)).toMatchObject({ direction: 'sent', kind: 'notification', method: 'notifications/roots/list_changed' });
    await pair.close();

    pair = await createInMemoryPair(buildServer(), { era: 'legacy', inputCapabilities: ['roots'], onInputRequest: () => roots });
    expect(await pair.client.notifyRootsChanged()).toBe(false);
    await pair.close();
    pair = await createInMemoryPair(buildServer(), { era: 'modern', capabilities: { roots: { listChanged: true } }, onInputRequest: () => roots });
    expect(await pair.client.notifyRootsChanged()).toBe(false);
  });

  it('keeps the connection working when the listener throws', async () => {
    pair = await createInMemoryPair(buildServer(), {
      onWireMessage: () => {
        throw new Error('a broken debugger');
      },
    });
    expect((await pair.client.callTool('shout', { text: 'still' })).content).toEqual([{ type: 'text', text: 'STILL' }]);
  });
});
