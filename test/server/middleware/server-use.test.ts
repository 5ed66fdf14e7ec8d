import { afterEach, describe, expect, it } from 'vitest';
import { MemoryAuditSink } from '../../../src/audit/memory-sink.js';
import { RpcError } from '../../../src/jsonrpc/errors.js';
import { definePrompt } from '../../../src/server/primitives/prompts/index.js';
import { defineResource, defineResourceTemplate } from '../../../src/server/primitives/resources/index.js';
import { ToolServer, type ToolServerOptions } from '../../../src/server/server.js';
import { ToolError } from '../../../src/server/tool.js';
import type { Middleware, MiddlewareContext } from '../../../src/server/middleware.js';
import { startHttp } from '../../helpers/http.js';
import { memoryLogger, wire } from '../../helpers/wire.js';
import { until } from '../../helpers/until.js';
import { tempDir } from '../../helpers/temp.js';
import { join } from 'node:path';

type Msg = Record<string, any>;

let handlerRuns = 0;

function makeServer(options: ToolServerOptions = {}) {
  handlerRuns = 0;
  return new ToolServer({
    logger: memoryLogger().logger,
    audit: false,
    tasks: false,
    tools: [
      {
        name: 'calculate_sum',
        description: 'adds',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        annotations: { readOnlyHint: true },
        handler: ({ a, b }: { a: number; b: number }) => {
          handlerRuns++;
          return String(a + b);
        },
      },
    ],
    resources: [defineResource({ uri: 'docs://a', name: 'a', read: () => 'A' }), defineResource({ uri: 'docs://b', name: 'b', read: () => 'B' })],
    resourceTemplates: [
      defineResourceTemplate({ uriTemplate: 'db://{table}', name: 'table', complete: { table: () => ['users'] }, read: (_u, v) => `table ${v.table}` }),
    ],
    prompts: [definePrompt({ name: 'greet', arguments: [{ name: 'who' }], get: ({ who }) => `hello ${who}` })],
    ...options,
  });
}

/** Every method family a client can call, with valid params (era-neutral). */
const CALLS: Array<[string, Msg]> = [
  ['tools/list', {}],
  ['tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } }],
  ['resources/list', {}],
  ['resources/templates/list', {}],
  ['resources/read', { uri: 'docs://a' }],
  ['prompts/list', {}],
  ['prompts/get', { name: 'greet', arguments: { who: 'ada' } }],
  ['completion/complete', { ref: { type: 'ref/resource', uri: 'db://{table}' }, argument: { name: 'table', value: 'u' } }],
];

/** Talks to a server over stdio's message-stream session or over real HTTP, in either era, through one face. */
async function client(transport: 'stdio' | 'http', era: 'modern' | 'legacy', server: ToolServer, headers: Record<string, string> = {}) {
  if (transport === 'stdio') {
    const w = wire(server);
    if (era === 'legacy') await w.initialize();
    return { call: (method: string, params: Msg = {}) => (era === 'modern' ? w.modern(method, params) : w.request(method, params)), close: async () => {} };
  }
  const http = await startHttp(server, { authenticate: (req) => (req.headers['x-user'] as string | undefined) || undefined });
  closers.push(() => http.close());
  const withUser = { 'x-user': 'alice', ...headers };
  if (era === 'modern')
    return { call: async (method: string, params: Msg = {}) => (await http.modern(method, params, withUser)).json() as Promise<Msg>, close: async () => {} };
  const init = await http.post(
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    withUser,
  );
  const sessionId = init.headers.get('mcp-session-id')!;
  let id = 1;
  return {
    call: async (method: string, params: Msg = {}) =>
      (
        await http.post({ jsonrpc: '2.0', id: id++, method, params }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25', ...withUser })
      ).json() as Promise<Msg>,
    close: async () => {},
  };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe.each([
  ['stdio', 'modern'],
  ['stdio', 'legacy'],
  ['http', 'modern'],
  ['http', 'legacy'],
] as const)('server.use over %s, %s era', (transport, era) => {
  it('a middleware for every method observes each method family, its era and its result object', async () => {
    const seen: Array<{ method: string; era: string; result: string }> = [];
    const server = makeServer();
    server.use(async (ctx, next) => {
      const result = await next();
      seen.push({ method: ctx.method, era: ctx.era, result: typeof result });
      return result;
    });
    const c = await client(transport, era, server);
    for (const [method, params] of CALLS) {
      const answer = await c.call(method, params);
      expect(answer.error, method).toBeUndefined();
    }
    const expected = CALLS.map(([method]) => ({ method, era, result: 'object' }));
    // initialize is a request like the others (legacy): observed first.
    expect(seen).toEqual(era === 'legacy' ? [{ method: 'initialize', era, result: 'object' }, ...expected] : expected);
  });

  it('changes params before next(): tool arguments, a prompt argument, a resource uri', async () => {
    const server = makeServer();
    server.use('tools/call', (ctx, next) => {
      ctx.params.arguments = { ...ctx.params.arguments, a: 40 };
      return next();
    });
    server.use('prompts/get', (ctx, next) => {
      ctx.params = { ...ctx.params, arguments: { who: 'grace' } };
      return next();
    });
    server.use('resources/read', (ctx, next) => {
      ctx.params.uri = 'docs://b';
      return next();
    });
    const c = await client(transport, era, server);
    expect((await c.call('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } })).result.content[0].text).toBe('42');
    expect((await c.call('prompts/get', { name: 'greet', arguments: { who: 'ada' } })).result.messages[0].content.text).toBe('hello grace');
    expect((await c.call('resources/read', { uri: 'docs://a' })).result.contents[0].text).toBe('B');
  });

  it('changes the result after next(), including a pre-serialized list page, which stays intact for the next request', async () => {
    const server = makeServer();
    let decorate = true;
    server.use('tools/list', async (_ctx, next) => {
      const page = (await next())!;
      return decorate ? { ...page, tools: (page.tools as Msg[]).map((t) => ({ ...t, title: `[${t.name}]` })) } : page;
    });
    server.use('tools/call', async (_ctx, next) => {
      const result = (await next()) as Msg;
      return { ...result, content: [...result.content, { type: 'text', text: 'checked' }] };
    });
    const c = await client(transport, era, server);
    expect((await c.call('tools/list')).result.tools[0].title).toBe('[calculate_sum]');
    decorate = false;
    expect((await c.call('tools/list')).result.tools[0].title).toBeUndefined();
    const call = (await c.call('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } })).result;
    expect(call.content.map((b: Msg) => b.text)).toEqual(['3', 'checked']);
    if (era === 'modern') expect(call.resultType).toBe('complete');
  });

  it('answers without next(): the handler never runs', async () => {
    const server = makeServer();
    server.use('tools/call', () => ({ content: [{ type: 'text', text: 'from the middleware' }] }));
    server.use('resources/read', (ctx) => ({ contents: [{ uri: ctx.params.uri as string, text: 'cached' }] }));
    const c = await client(transport, era, server);
    expect((await c.call('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } })).result.content[0].text).toBe('from the middleware');
    expect(handlerRuns).toBe(0);
    expect((await c.call('resources/read', { uri: 'docs://a' })).result.contents[0].text).toBe('cached');
  });

  it('refuses: an RpcError is the JSON-RPC error, a ToolError on tools/call an isError result, on other methods -32602; any other throw is internal', async () => {
    const server = makeServer();
    server.use('tools/call', (ctx, next) => {
      if (ctx.params.arguments.a === 13) throw new RpcError(-32001, 'unlucky');
      if (ctx.params.arguments.a === 7) throw new ToolError('seven is not allowed here');
      if (ctx.params.arguments.a === 666) throw new Error('/secret/path broke');
      return next();
    });
    server.use('prompts/get', () => {
      throw new ToolError('no prompts today');
    });
    server.use('resources/read', () => {
      throw new Error('/secret/path broke');
    });
    const c = await client(transport, era, server);
    const rpc = await c.call('tools/call', { name: 'calculate_sum', arguments: { a: 13, b: 0 } });
    expect(rpc.error).toMatchObject({ code: -32001, message: 'unlucky' });
    const tool = await c.call('tools/call', { name: 'calculate_sum', arguments: { a: 7, b: 0 } });
    expect(tool.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'seven is not allowed here' }] });
    const internal = await c.call('tools/call', { name: 'calculate_sum', arguments: { a: 666, b: 0 } });
    expect(internal.result.isError).toBe(true);
    expect(internal.result.content[0].text).toMatch(/internal error \(correlation id/);
    expect(JSON.stringify(internal)).not.toContain('/secret/path');
    expect((await c.call('prompts/get', { name: 'greet', arguments: { who: 'x' } })).error).toMatchObject({ code: -32602, message: 'no prompts today' });
    const read = await c.call('resources/read', { uri: 'docs://a' });
    expect(read.error.code).toBe(-32603);
    expect(JSON.stringify(read)).not.toContain('/secret/path');
    expect(handlerRuns).toBe(0);
  });

  it('every method family can be answered, changed and refused by a middleware for it', async () => {
    for (const [method, params] of CALLS) {
      const server = makeServer();
      let mode: 'answer' | 'change' | 'refuse' = 'answer';
      server.use(method, async (_ctx, next) => {
        if (mode === 'answer') return { answeredBy: 'middleware' };
        if (mode === 'refuse') throw new RpcError(-32042, `no ${method}`);
        return { ...(await next()), changedBy: 'middleware' };
      });
      const c = await client(transport, era, server);
      expect((await c.call(method, params)).result, method).toMatchObject({ answeredBy: 'middleware' });
      mode = 'change';
      const changed = (await c.call(method, params)).result;
      expect(changed, method).toMatchObject({ changedBy: 'middleware' });
      expect(Object.keys(changed).length, method).toBeGreaterThan(era === 'modern' ? 3 : 1);
      mode = 'refuse';
      expect((await c.call(method, params)).error, method).toMatchObject({ code: -32042, message: `no ${method}` });
      if (era === 'modern') expect(changed.resultType, method).toBe('complete');
    }
  });

  it('calling next() twice is an error, and the rest of the pipeline ran once', async () => {
    const server = makeServer();
    const twice: Middleware<any, any> = async (_ctx, next) => {
      await next();
      return next();
    };
    server.use('tools/call', twice);
    server.use('prompts/get', twice);
    const c = await client(transport, era, server);
    const call = await c.call('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } });
    expect(call.result.isError).toBe(true);
    expect(handlerRuns).toBe(1);
    expect((await c.call('prompts/get', { name: 'greet', arguments: { who: 'x' } })).error.code).toBe(-32603);
  });
});

describe('where user middleware sits', () => {
  it('a tools/call middleware sees the tool, its annotations and validated arguments; invalid arguments never reach it', async () => {
    const seen: Msg[] = [];
    const server = makeServer();
    server.use('tools/call', (ctx, next) => {
      seen.push({ tool: ctx.tool.name, readOnly: ctx.tool.annotations?.readOnlyHint, args: ctx.params.arguments });
      return next();
    });
    const w = wire(server);
    expect((await w.modern('tools/call', { name: 'calculate_sum', arguments: { a: 'x', b: 2 } })).result.isError).toBe(true);
    expect(seen).toEqual([]);
    await w.modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } });
    expect(seen).toEqual([{ tool: 'calculate_sum', readOnly: true, args: { a: 1, b: 2 } }]);
  });

  it('arguments a middleware changes are the ones the user is asked to approve, and the ones audited', async () => {
    const audit = new MemoryAuditSink();
    const server = makeServer({
      audit,
      tools: [
        {
          name: 'drop',
          description: 'drops a table',
          inputSchema: { type: 'object', properties: { table: { type: 'string' } } },
          annotations: { destructiveHint: true },
          handler: () => 'dropped',
        },
      ],
    });
    server.use('tools/call', (ctx, next) => {
      ctx.params.arguments = { table: 'scratch_copy' };
      return next();
    });
    const asked = await wire(server).modern(
      'tools/call',
      { name: 'drop', arguments: { table: 'users' } },
      { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
    );
    expect(asked.result.resultType).toBe('input_required');
    const message = JSON.stringify(asked.result.inputRequests);
    expect(message).toContain('scratch_copy');
    expect(message).not.toContain('users');
    expect(audit.records[0].argumentsJson).toBe('{"table":"scratch_copy"}');
  });

  it('a middleware sees the caller of an authenticated HTTP request, and the caller a connection was opened for', async () => {
    const principals: Array<string | undefined> = [];
    const server = makeServer();
    server.use((ctx, next) => {
      principals.push(ctx.principal);
      return next();
    });
    const http = await startHttp(server, { authenticate: (req) => (req.headers['x-user'] as string | undefined) || undefined });
    closers.push(() => http.close());
    await http.modern('tools/list', {}, { 'x-user': 'alice' });
    await http.modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } }, { 'x-user': 'bob' });
    const connection = server.connect({ transport: 'test', caller: { id: 'carol', scopes: ['x'], claims: {}, method: 'custom' } });
    let auth: MiddlewareContext['auth'];
    server.use('prompts/list', (ctx, next) => {
      auth = ctx.auth;
      return next();
    });
    await connection.receive(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'prompts/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    );
    expect(principals).toEqual(['alice', 'bob', 'carol']);
    expect(auth).toMatchObject({ id: 'carol', scopes: ['x'] });
  });

  it('a refusal by a middleware is in the audit trail, for tools/call and for other audited methods', async () => {
    const audit = new MemoryAuditSink();
    const server = makeServer({ audit });
    server.use((ctx, next) => {
      if (ctx.method === 'tools/call' || ctx.method === 'prompts/get') throw new RpcError(-32001, 'not now');
      return next();
    });
    const w = wire(server);
    await w.modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } });
    await w.modern('prompts/get', { name: 'greet', arguments: { who: 'x' } });
    expect(audit.records.map((r) => ({ method: r.method, tool: r.tool, status: r.status, errorCode: r.errorCode }))).toEqual([
      { method: undefined, tool: 'calculate_sum', status: 'protocol_error', errorCode: -32001 },
      { method: 'prompts/get', tool: 'greet', status: 'protocol_error', errorCode: -32001 },
    ]);
  });

  it('middleware from the options runs outermost, in order, and use() refuses what is not a middleware', async () => {
    const order: string[] = [];
    const mark =
      (name: string): Middleware =>
      async (_ctx, next) => {
        order.push(name);
        return next();
      };
    const server = makeServer({ middleware: [mark('first'), { method: 'tools/list', middleware: mark('second') }] });
    server.use(mark('third'));
    await wire(server).modern('tools/list');
    expect(order).toEqual(['first', 'second', 'third']);
    expect(() => server.use('tools/list' as any)).toThrow(/use\(middleware\) or use\(method, middleware\)/);
    expect(() => server.use(42 as any)).toThrow(TypeError);
  });

  it('server/discover, tasks/* and subscriptions/listen take the same path', async () => {
    const seen: string[] = [];
    const server = makeServer({ tasks: { store: join(tempDir('tw-mw-tasks-'), 'tasks.db') } });
    server.use(async (ctx, next) => {
      seen.push(ctx.method);
      return next();
    });
    const w = wire(server);
    expect((await w.modern('server/discover')).result.supportedVersions).toBeDefined();
    const tasks = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
    expect((await w.modern('tasks/get', { taskId: 'nope' }, tasks)).error.code).toBe(-32602);
    void w.modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, {});
    await until(() => seen.includes('subscriptions/listen'), 'the listen request reached the middleware');
    expect(seen).toEqual(['server/discover', 'tasks/get', 'subscriptions/listen']);
    server.endSubscriptions();
  });

  it('ctx.signal aborts when the client cancels a tool call, and when an HTTP client stops waiting for another request', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const server = makeServer({
      tools: [
        {
          name: 'wait',
          description: 'waits',
          inputSchema: { type: 'object' },
          handler: async (_a, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'), { once: true })),
        },
      ],
      prompts: [
        definePrompt({
          name: 'slow',
          get: async () => {
            await held;
            return 'late';
          },
        }),
      ],
    });
    const aborted: string[] = [];
    const entered: string[] = [];
    server.use((ctx, next) => {
      entered.push(ctx.method);
      ctx.signal.addEventListener('abort', () => aborted.push(ctx.method), { once: true });
      return next();
    });
    const w = wire(server);
    void w.modern('tools/call', { name: 'wait', arguments: {} }, {}).catch(() => undefined);
    await until(() => entered.includes('tools/call'), 'the tool call reached the middleware');
    w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await until(() => aborted.includes('tools/call'), 'the tool call middleware saw the cancellation');
    const http = await startHttp(server, {});
    closers.push(() => http.close());
    const controller = new AbortController();
    const pending = fetch(http.url, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'prompts/get',
        'mcp-name': 'slow',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'prompts/get',
        params: { name: 'slow', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    }).catch(() => undefined);
    await until(() => entered.includes('prompts/get'), 'the prompt request reached the middleware');
    controller.abort();
    await pending;
    await until(() => aborted.includes('prompts/get'), 'the prompt middleware saw the client leave');
    release();
  });

  it('a middleware result that is not an object is an internal error, not a crash', async () => {
    const server = makeServer();
    server.use('tools/list', () => 'nope' as any);
    expect((await wire(server).modern('tools/list')).error.code).toBe(-32603);
  });
});
