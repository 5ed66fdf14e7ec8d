import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { definePrompt, defineResource, ToolError, ToolServer, type ToolServerOptions } from '../../src/index.js';
import { MessageStreamSession } from '../../src/transports/message-stream.js';
import { startHttp } from '../helpers/http.js';
import { registerOtel, traceparent } from '../helpers/otel.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';
import { WITH_TASKS } from '../helpers/tasks.js';

type Msg = Record<string, any>;

function makeServer(options: ToolServerOptions = {}) {
  return new ToolServer({
    logger: memoryLogger().logger,
    audit: false,
    tools: [
      {
        name: 'get_weather',
        description: 'weather',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        handler: ({ city }: { city: string }) => {
          // A span the tool starts is a child of the request's SERVER span.
          trace.getTracer('tool').startSpan('lookup').end();
          return `sunny in ${city}`;
        },
      },
      {
        name: 'fail',
        description: 'always an isError result',
        inputSchema: { type: 'object' },
        handler: () => {
          throw new ToolError('no such city');
        },
      },
    ],
    resources: [defineResource({ uri: 'docs://a', name: 'a', read: () => 'A' })],
    prompts: [definePrompt({ name: 'review', arguments: [{ name: 'who' }], get: ({ who }) => `review ${who}` })],
    ...options,
  });
}

/** A connection as stdio serves one (newline-delimited JSON on a pipe), in process. */
function stdio(server: ToolServer) {
  const waiters = new Map<unknown, (m: Msg) => void>();
  const session = new MessageStreamSession(
    server,
    (json) => {
      const msg = JSON.parse(json) as Msg;
      if ('id' in msg) waiters.get(msg.id)?.(msg);
    },
    'stdio',
  );
  let nextId = 1;
  const request = (method: string, params?: Msg): Promise<Msg> => {
    const id = nextId++;
    return new Promise((resolve) => {
      waiters.set(id, resolve);
      session.receive(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    });
  };
  return { request, modern: (method: string, params: Msg = {}, meta: Msg = {}) => request(method, { ...params, _meta: modernMeta(meta) }) };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function http(server: ToolServer) {
  const h = await startHttp(server);
  closers.push(() => h.close());
  return h;
}

const A = { traceId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', spanId: 'aaaaaaaaaaaaaaa1' };
const B = { traceId: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', spanId: 'bbbbbbbbbbbbbbb1' };

describe('a SERVER span per request, named and attributed by the MCP conventions', () => {
  it.each([
    [
      'tools/call',
      { name: 'get_weather', arguments: { city: 'Oslo' } },
      'tools/call get_weather',
      { 'gen_ai.tool.name': 'get_weather', 'gen_ai.operation.name': 'execute_tool' },
    ],
    ['tools/list', {}, 'tools/list', {}],
    ['prompts/get', { name: 'review', arguments: { who: 'ada' } }, 'prompts/get review', { 'gen_ai.prompt.name': 'review' }],
    ['resources/read', { uri: 'docs://a' }, 'resources/read', { 'mcp.resource.uri': 'docs://a' }],
  ])('%s over stdio, modern era', async (method, params, name, extra) => {
    const otel = registerOtel();
    const answer = await stdio(makeServer()).modern(method, params);
    expect(answer.error).toBeUndefined();
    const span = otel.span(name);
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toEqual({
      'mcp.method.name': method,
      'mcp.protocol.version': '2026-07-28',
      'jsonrpc.request.id': '1',
      'network.transport': 'pipe',
      ...extra,
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('initialize and a legacy session over HTTP: mcp.session.id, network tcp/http, client.address', async () => {
    const otel = registerOtel();
    const h = await http(makeServer());
    const sessionId = await h.initialize();
    await (await h.legacy(sessionId, 'tools/call', { name: 'get_weather', arguments: { city: 'Oslo' } })).json();
    const init = otel.span('initialize');
    expect(init.attributes).toMatchObject({
      'mcp.method.name': 'initialize',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'client.address': expect.stringMatching(/127\.0\.0\.1/),
    });
    const call = otel.span('tools/call get_weather');
    expect(call.attributes).toMatchObject({
      'mcp.session.id': sessionId,
      'mcp.protocol.version': '2025-11-25',
      'gen_ai.tool.name': 'get_weather',
      'client.port': expect.any(Number),
    });
  });

  it('spans the tool starts are children of the request span', async () => {
    const otel = registerOtel();
    await stdio(makeServer()).modern('tools/call', { name: 'get_weather', arguments: { city: 'Oslo' } });
    const request = otel.span('tools/call get_weather');
    expect(otel.span('lookup').parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  });
});

describe('failures', () => {
  it('an isError result is error.type tool_error, status ERROR', async () => {
    const otel = registerOtel();
    const answer = await stdio(makeServer()).modern('tools/call', { name: 'fail', arguments: {} });
    expect(answer.result.isError).toBe(true);
    const span = otel.span('tools/call fail');
    expect(span.attributes['error.type']).toBe('tool_error');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('arguments that fail validation are an isError result too (the span covers validation)', async () => {
    const otel = registerOtel();
    await stdio(makeServer()).modern('tools/call', { name: 'get_weather', arguments: { city: 7 } });
    expect(otel.span('tools/call get_weather').attributes['error.type']).toBe('tool_error');
  });

  it('a JSON-RPC error is its code in error.type and rpc.response.status_code, its message the status', async () => {
    const otel = registerOtel();
    const answer = await stdio(makeServer()).modern('prompts/get', { name: 'nope' });
    expect(answer.error.code).toBe(-32602);
    // An unknown name is not the span's target: clients do not choose span names.
    const span = otel.span('prompts/get');
    expect(span.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(span.attributes).not.toHaveProperty('gen_ai.prompt.name');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: answer.error.message });
  });

  it('an unknown tool names neither the span nor a metric series', async () => {
    const otel = registerOtel();
    const s = stdio(makeServer());
    for (const name of ['x-1', 'x-2', 'x-3']) await s.modern('tools/call', { name, arguments: {} });
    expect(otel.spans().map((sp) => sp.name)).toEqual(['tools/call', 'tools/call', 'tools/call']);
    expect(otel.spans().every((sp) => !('gen_ai.tool.name' in sp.attributes) && sp.attributes['error.type'] !== undefined)).toBe(true);
    const points = await otel.histogram('mcp.server.operation.duration');
    expect(points).toHaveLength(1);
    expect(points[0].count).toBe(3);
  });
});

describe('the parent: _meta, then HTTP headers', () => {
  it('takes the traceparent in _meta (stdio)', async () => {
    const otel = registerOtel();
    await stdio(makeServer()).modern('tools/list', {}, { traceparent: traceparent(A.traceId, A.spanId) });
    const span = otel.span('tools/list');
    expect(span.spanContext().traceId).toBe(A.traceId);
    expect(span.parentSpanContext).toMatchObject({ spanId: A.spanId, isRemote: true });
  });

  it('takes the traceparent header when _meta has none, and links it when _meta has one (HTTP)', async () => {
    const otel = registerOtel();
    const h = await http(makeServer());
    await (await h.modern('tools/list', {}, { traceparent: traceparent(B.traceId, B.spanId) })).json();
    const fromHeader = otel.spans().at(-1)!;
    expect(fromHeader.parentSpanContext).toMatchObject({ traceId: B.traceId, spanId: B.spanId });
    expect(fromHeader.links).toEqual([]);
    await (await h.modern('prompts/list', {}, { traceparent: traceparent(B.traceId, B.spanId) }, { traceparent: traceparent(A.traceId, A.spanId) })).json();
    const both = otel.span('prompts/list');
    expect(both.parentSpanContext).toMatchObject({ traceId: A.traceId, spanId: A.spanId });
    expect(both.links.map((l) => l.context)).toEqual([expect.objectContaining({ traceId: B.traceId, spanId: B.spanId })]);
  });
});

describe('opt-ins and switches', () => {
  it('records no arguments or results by default', async () => {
    const otel = registerOtel();
    await stdio(makeServer()).modern('tools/call', { name: 'get_weather', arguments: { city: 'Oslo' } });
    expect(Object.keys(otel.span('tools/call get_weather').attributes).filter((k) => k.startsWith('gen_ai.tool.call.'))).toEqual([]);
  });

  it('records arguments and results when asked', async () => {
    const otel = registerOtel();
    await stdio(makeServer({ tracing: { recordArguments: true, recordResults: true } })).modern('tools/call', {
      name: 'get_weather',
      arguments: { city: 'Oslo' },
    });
    const span = otel.span('tools/call get_weather');
    expect(JSON.parse(span.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ city: 'Oslo' });
    expect(JSON.parse(span.attributes['gen_ai.tool.call.result'] as string)).toMatchObject({ content: [{ type: 'text', text: 'sunny in Oslo' }] });
  });

  it('recorded arguments are redacted as the audit trail redacts them (x-sensitive, secret key names)', async () => {
    const otel = registerOtel();
    const server = makeServer({
      tracing: { recordArguments: true },
      tools: [
        {
          name: 'login',
          description: 'd',
          inputSchema: { type: 'object', properties: { user: { type: 'string' }, pin: { type: 'string', 'x-sensitive': true }, password: { type: 'string' } } },
          handler: () => 'ok',
        },
      ],
    });
    await stdio(server).modern('tools/call', { name: 'login', arguments: { user: 'ada', pin: '1234', password: 'hunter2' } });
    const recorded = JSON.parse(otel.span('tools/call login').attributes['gen_ai.tool.call.arguments'] as string);
    expect(recorded).toEqual({ user: 'ada', pin: '[REDACTED]', password: '[REDACTED]' });
  });

  it('tracing: false records nothing', async () => {
    const otel = registerOtel();
    await stdio(makeServer({ tracing: false })).modern('tools/list');
    expect(otel.spans()).toEqual([]);
    expect(await otel.histogram('mcp.server.operation.duration')).toEqual([]);
  });
});

describe('mcp.server.operation.duration', () => {
  it('one point per request with the low-cardinality attributes and the advised buckets', async () => {
    const otel = registerOtel();
    const s = stdio(makeServer());
    await s.modern('tools/call', { name: 'get_weather', arguments: { city: 'Oslo' } });
    await s.modern('tools/call', { name: 'get_weather', arguments: { city: 'Rome' } });
    await s.modern('tools/call', { name: 'fail', arguments: {} });
    const points = await otel.histogram('mcp.server.operation.duration');
    expect(points).toEqual(
      expect.arrayContaining([
        {
          attributes: {
            'mcp.method.name': 'tools/call',
            'mcp.protocol.version': '2026-07-28',
            'gen_ai.tool.name': 'get_weather',
            'gen_ai.operation.name': 'execute_tool',
            'network.transport': 'pipe',
          },
          count: 2,
          boundaries: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
        },
        expect.objectContaining({ attributes: expect.objectContaining({ 'gen_ai.tool.name': 'fail', 'error.type': 'tool_error' }), count: 1 }),
      ]),
    );
  });
});

describe('a task and the call that created it', () => {
  it("the task's tool spans are children of the tools/call span, and its tasks/get spans link to it", async () => {
    const otel = registerOtel();
    const server = makeServer({
      tools: [
        {
          name: 'report',
          description: 'slow',
          inputSchema: { type: 'object' },
          task: 'always',
          handler: async () => {
            trace.getTracer('tool').startSpan('build report').end();
            return 'done';
          },
        },
      ],
    });
    const s = stdio(server);
    const created = await s.modern('tools/call', { name: 'report', arguments: {} }, WITH_TASKS);
    expect(created.result.resultType).toBe('task');
    const taskId = created.result.taskId as string;
    const call = otel.span('tools/call report');
    await expect.poll(() => otel.spans().some((sp) => sp.name === 'build report')).toBe(true);
    expect(otel.span('build report').parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    await s.modern('tasks/get', { taskId }, WITH_TASKS);
    const get = otel.span('tasks/get');
    expect(get.links.map((l) => l.context.spanId)).toEqual([call.spanContext().spanId]);
    expect(get.spanContext().traceId).not.toBe(call.spanContext().traceId);
  });
});
