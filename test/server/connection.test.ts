import { describe, expect, it } from 'vitest';
import { defineTool, ToolServer, type ServerConnection } from '../../src/index.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';

// server.connect as a transport with per-request channels (the shape Streamable HTTP uses) sees it.

const logger = memoryLogger().logger;
const parse = (json: string) => JSON.parse(json) as Record<string, any>;

const steps = defineTool({
  name: 'steps',
  description: 'Reports two steps of progress, then says who called.',
  inputSchema: { type: 'object' },
  handler: async (_args, ctx) => {
    ctx.progress(1, 2);
    ctx.progress(2, 2);
    return `done for ${ctx.principal ?? 'nobody'} (${ctx.auth?.scopes?.join(' ') ?? 'no scopes'})`;
  },
});

let started!: () => void;
const hang = defineTool({
  name: 'hang',
  description: 'Runs until stopped.',
  inputSchema: { type: 'object' },
  handler: (_args, ctx) =>
    new Promise((_, reject) => {
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
      started();
    }),
});

function connected(options: { caller?: string } = {}) {
  const server = new ToolServer({ logger, audit: false, tools: [steps, hang] });
  const own: string[] = [];
  const connection: ServerConnection = server.connect({ transport: 'test', send: (m) => own.push(m), ...options });
  return { server, connection, own };
}

const call = (id: number, name: string, meta: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'tools/call',
  params: { name, arguments: {}, _meta: modernMeta(meta) },
});

describe('server.connect', () => {
  it("sends a request's notifications on the channel given with it, and returns its reply", async () => {
    const { connection, own } = connected({ caller: 'alice' });
    const mine: string[] = [];
    const reply = await connection.receive(call(1, 'steps', { progressToken: 't' }), { send: (m) => mine.push(m) });
    expect(reply?.status).toBe(200);
    expect(parse(reply!.json).result.content[0].text).toBe('done for alice (no scopes)');
    expect(mine.map((m) => parse(m).params.progress)).toEqual([1, 2]);
    expect(own).toEqual([]);
  });

  it("takes the caller of one message over the connection's (a transport that authenticates every request)", async () => {
    const { connection } = connected({ caller: 'alice' });
    const auth = { id: 'bob', scopes: ['tools:read'], claims: {}, method: 'custom' as const };
    const reply = await connection.receive(JSON.stringify(call(1, 'steps')), { caller: auth });
    expect(parse(reply!.json).result.content[0].text).toBe('done for bob (tools:read)');
  });

  it('cancels a request whose signal aborts: it gets no answer', async () => {
    const { connection } = connected();
    const running = new Promise<void>((resolve) => (started = resolve));
    const controller = new AbortController();
    const reply = connection.receive(call(1, 'hang'), { signal: controller.signal });
    await running;
    expect(connection.inFlight).toBe(1);
    controller.abort(new Error('client gone'));
    expect(await reply).toBeUndefined();
    expect(connection.inFlight).toBe(0);
  });

  it('checks a parsed message as it checks text: an invalid one is answered on the channel, not run', async () => {
    const { connection, own } = connected();
    const bad = { jsonrpc: '1.0', id: 9, method: 'tools/call', params: {} };
    expect(connection.receive(bad as never)).toBeUndefined();
    expect(parse(own[0])).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0"' } });
  });

  it('tells the legacy protocol version once initialize made it a session, and closing stops what runs', async () => {
    const { connection } = connected();
    expect(connection.protocolVersion).toBeUndefined();
    await connection.receive({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } });
    expect(connection.protocolVersion).toBe('2025-06-18');
    const running = new Promise<void>((resolve) => (started = resolve));
    const reply = connection.receive({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hang', arguments: {} } });
    await running;
    connection.close('gone');
    expect(await reply).toBeUndefined();
  });

  it('refuses a caller that is not a principal id or an AuthInfo', () => {
    const server = new ToolServer({ logger, audit: false });
    expect(() => server.connect({ transport: 'test', caller: { scopes: [] } as never })).toThrow(TypeError);
    expect(() => server.connect({} as never)).toThrow(/transport/);
  });
});
