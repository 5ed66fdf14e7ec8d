import { afterEach, describe, expect, it } from 'vitest';
import { McpRpcError, ToolClient } from '../../src/client.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { ToolServer } from '../../src/server/server.js';
import { createInMemoryPair, type InMemoryPair } from '../../src/testing.js';
import { startHttp } from '../helpers/http.js';
import { memoryLogger } from '../helpers/wire.js';

function buildServer() {
  return new ToolServer({
    logger: memoryLogger().logger,
    audit: false,
    tasks: false,
    tools: [
      {
        name: 'echo',
        description: 'echoes',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        handler: ({ text }: { text: string }) => text,
      },
    ],
  });
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0)) await clean();
});

describe('client.use', () => {
  it('wraps every outgoing request: sees method and params, adds _meta the server sees, changes params and the result', async () => {
    const server = buildServer();
    const seenByServer: unknown[] = [];
    server.use((ctx, next) => {
      seenByServer.push(ctx.meta?.traceparent);
      return next();
    });
    const pair: InMemoryPair = await createInMemoryPair(server);
    cleanups.push(() => pair.close());
    const methods: string[] = [];
    pair.client.use(async (ctx, next) => {
      methods.push(ctx.method);
      ctx.meta.traceparent = '00-abc-def-01';
      if (ctx.method === 'tools/call') ctx.params = { ...ctx.params, arguments: { text: 'changed' } };
      const result = await next();
      return ctx.method === 'tools/call'
        ? { ...result, content: [{ type: 'text', text: `seen: ${(result.content as Array<{ text: string }>)[0].text}` }] }
        : result;
    });
    const result = await pair.client.callTool('echo', { text: 'original' });
    expect(result.content).toEqual([{ type: 'text', text: 'seen: changed' }]);
    expect(methods).toContain('tools/call');
    expect(seenByServer.at(-1)).toBe('00-abc-def-01');
  });

  it('may call next() again to retry a failed request', async () => {
    const server = buildServer();
    let refusals = 1;
    server.use('tools/call', (_ctx, next) => {
      if (refusals-- > 0) throw new RpcError(-32001, 'busy, try again');
      return next();
    });
    const pair = await createInMemoryPair(server);
    cleanups.push(() => pair.close());
    const attempts: string[] = [];
    pair.client.use(async (_ctx, next) => {
      try {
        return await next();
      } catch (err) {
        attempts.push(err instanceof McpRpcError ? err.message : String(err));
        return next();
      }
    });
    expect((await pair.client.callTool('echo', { text: 'x' })).content).toEqual([{ type: 'text', text: 'x' }]);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatch(/busy/);
  });

  it('over HTTP, sets headers the server authenticates the caller by', async () => {
    const server = buildServer();
    const principals: Array<string | undefined> = [];
    server.use('tools/call', (ctx, next) => {
      principals.push(ctx.principal);
      return next();
    });
    const http = await startHttp(server, { authenticate: (req) => (req.headers['x-user'] as string | undefined) || 'nobody' });
    cleanups.push(() => http.close());
    const client = new ToolClient({ url: http.url });
    cleanups.push(() => client.close());
    client.use((ctx, next) => {
      ctx.headers['x-user'] = 'alice';
      return next();
    });
    await client.connect();
    await client.callTool('echo', { text: 'x' });
    expect(principals).toEqual(['alice']);
  });

  it('refuses what is not a function', () => {
    expect(() => new ToolClient({ url: 'http://127.0.0.1:1' }).use(42 as never)).toThrow(TypeError);
  });
});
