import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { defineTool, ToolServer } from '../../src/index.js';
import { serveWebSocket } from '../fixtures/websocket-transport.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';

// A third party's transport (test/fixtures/websocket-transport.ts uses only the public
// `server.connect`) serving a real WebSocket on 127.0.0.1, talked to by a raw JSON-RPC client.

type Msg = Record<string, any>;

/** A JSON-RPC peer over a real WebSocket: keeps every message, waits for one by predicate. */
async function wsClient(url: string) {
  const socket = new WebSocket(url);
  const received: Msg[] = [];
  const waiters: Array<{ match: (m: Msg) => boolean; resolve: (m: Msg) => void }> = [];
  socket.on('message', (data) => {
    const msg = JSON.parse(String(data)) as Msg;
    received.push(msg);
    for (const w of waiters.splice(0)) {
      if (w.match(msg)) w.resolve(msg);
      else waiters.push(w);
    }
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const next = (match: (m: Msg) => boolean): Promise<Msg> => {
    const seen = received.find(match);
    return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
  };
  let id = 0;
  const send = (msg: Msg) => socket.send(JSON.stringify({ jsonrpc: '2.0', ...msg }));
  const request = (method: string, params?: Msg) => {
    const mine = ++id;
    send({ id: mine, method, ...(params ? { params } : {}) });
    return next((m) => m.id === mine && !('method' in m));
  };
  const closed = new Promise((resolve) => socket.once('close', resolve));
  return { socket, received, next, send, request, close: () => (socket.close(), closed) };
}

const logger = memoryLogger().logger;
let teardown: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of teardown.reverse()) await step();
  teardown = [];
});

async function start(server: ToolServer, options?: Parameters<typeof serveWebSocket>[2]) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 1024 * 1024 });
  await new Promise((resolve) => wss.once('listening', resolve));
  serveWebSocket(server, wss, options);
  teardown.push(
    () => server.close(),
    () => new Promise((resolve) => wss.close(resolve)),
  );
  const { port } = wss.address() as { port: number };
  const client = await wsClient(`ws://127.0.0.1:${port}`);
  teardown.push(() => client.close());
  return client;
}

const count = defineTool({
  name: 'count',
  description: 'Counts to n, reporting progress.',
  inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  handler: async ({ n }, ctx) => {
    for (let i = 1; i <= (n as number); i++) ctx.progress(i, n as number);
    return `counted to ${n} for ${ctx.principal ?? 'nobody'}`;
  },
});

const greet = defineTool({
  name: 'greet',
  description: 'Asks the user for their name, then greets them.',
  inputSchema: { type: 'object' },
  handler: async (_args, ctx) => {
    const answer = await ctx.elicit('What is your name?', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
    return `Hello, ${answer.content?.name}!`;
  },
});

const newServer = () => new ToolServer({ name: 'ws', version: '1.0.0', logger, audit: false, tools: [count, greet] });

describe('a WebSocket transport written with only the public connection API', () => {
  it('serves a legacy client: initialize, tools/list, tools/call with progress on the same socket', async () => {
    const client = await start(newServer(), { authenticate: () => 'alice' });
    const init = await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ws-client', version: '1' } });
    expect(init.result).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'ws', version: '1.0.0' },
      capabilities: { tools: { listChanged: true } },
    });
    client.send({ method: 'notifications/initialized' });

    const list = await client.request('tools/list');
    expect(list.result.tools.map((t: Msg) => t.name)).toEqual(['count', 'greet']);

    const call = await client.request('tools/call', { name: 'count', arguments: { n: 3 }, _meta: { progressToken: 'p1' } });
    expect(call.result).toEqual({ content: [{ type: 'text', text: 'counted to 3 for alice' }] });
    const progress = client.received.filter((m) => m.method === 'notifications/progress');
    expect(progress.map((m) => m.params)).toEqual([1, 2, 3].map((progress) => ({ progressToken: 'p1', progress, total: 3 })));
    // Progress was sent before the answer (every message on one ordered socket).
    expect(client.received.indexOf(progress[2])).toBeLessThan(client.received.indexOf(call));
  });

  it('serves modern stateless requests on the same kind of socket, without a handshake', async () => {
    const client = await start(newServer());
    const discover = await client.request('server/discover', { _meta: modernMeta() });
    expect(discover.result).toMatchObject({ resultType: 'complete', supportedVersions: ['2026-07-28'] });
    const call = await client.request('tools/call', { name: 'count', arguments: { n: 2 }, _meta: modernMeta({ progressToken: 7 }) });
    expect(call.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'counted to 2 for nobody' }] });
    expect(client.received.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress)).toEqual([1, 2]);
    // A request of neither era is refused as it would be on stdio.
    expect((await client.request('tools/list')).error).toMatchObject({ code: -32602 });
  });

  it('round-trips a server-to-client request: legacy elicitation/create and its answer', async () => {
    const client = await start(newServer());
    await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'ws-client', version: '1' } });
    client.send({ method: 'notifications/initialized' });
    const answer = client.request('tools/call', { name: 'greet', arguments: {} });
    const ask = await client.next((m) => m.method === 'elicitation/create');
    expect(ask.params).toMatchObject({ message: 'What is your name?' });
    client.send({ id: ask.id, result: { action: 'accept', content: { name: 'Lin' } } });
    expect((await answer).result).toEqual({ content: [{ type: 'text', text: 'Hello, Lin!' }] });
  });

  it("pushes list changes to a legacy client on the connection's own channel", async () => {
    const server = newServer();
    const client = await start(server);
    await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ws-client', version: '1' } });
    server.addTool(defineTool({ name: 'later', description: 'Added later.', inputSchema: { type: 'object' }, handler: () => 'ok' }));
    expect(await client.next((m) => m.method === 'notifications/tools/list_changed')).toMatchObject({ jsonrpc: '2.0' });
  });

  it('answers a message that is not JSON with a parse error and keeps serving', async () => {
    const client = await start(newServer());
    client.socket.send('{not json');
    expect(await client.next((m) => m.error?.code === -32700)).toMatchObject({ error: { message: 'Parse error: the message is not valid JSON' } });
    expect((await client.request('server/discover', { _meta: modernMeta() })).result.resultType).toBe('complete');
  });

  it('stops the calls of a client whose socket closes', async () => {
    let resolveStarted!: () => void;
    const started = new Promise<void>((resolve) => (resolveStarted = resolve));
    let resolveStopped!: (reason: unknown) => void;
    const stopped = new Promise((resolve) => (resolveStopped = resolve));
    const wait = defineTool({
      name: 'wait',
      description: 'Waits until stopped.',
      inputSchema: { type: 'object' },
      handler: (_args, ctx) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => {
            resolveStopped(ctx.signal.reason);
            reject(ctx.signal.reason);
          });
          resolveStarted();
        }),
    });
    const client = await start(new ToolServer({ logger, audit: false, tools: [wait] }));
    client.send({ id: 1, method: 'tools/call', params: { name: 'wait', arguments: {}, _meta: modernMeta() } });
    await started;
    await client.close();
    expect(String(await stopped)).toMatch(/the WebSocket closed/);
  });
});
