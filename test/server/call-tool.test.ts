import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolServer } from '../../src/server/server.js';
import { ToolError, type Tool } from '../../src/server/tool.js';
import { memoryLogger, throwingLogger, wire } from '../helpers/wire.js';

function setup(tools: Tool[], options: { timeoutMs?: number } = {}) {
  const log = memoryLogger();
  const server = new ToolServer({ logger: log.logger, tools, ...options });
  return { ...wire(server), records: log.records, server };
}

const sum: Tool = {
  name: 'calculate_sum',
  description: 'Adds two numbers.',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
  handler: ({ a, b }) => String(a + b),
};

describe('tools/call', () => {
  it('turns a string into one text block', async () => {
    const { modern } = setup([sum]);
    const res = await modern('tools/call', { name: 'calculate_sum', arguments: { a: 2, b: 3 } });
    expect(res.result.content).toEqual([{ type: 'text', text: '5' }]);
    expect(res.result.resultType).toBe('complete');
  });

  it('names every offending argument in an isError result, and never runs the handler', async () => {
    let ran = false;
    const { modern } = setup([
      {
        ...sum,
        handler: () => {
          ran = true;
          return '';
        },
      },
    ]);
    const res = await modern('tools/call', { name: 'calculate_sum', arguments: { a: 'two', c: 1 } });
    expect(res.result.isError).toBe(true);
    const text = res.result.content[0].text as string;
    expect(text).toContain('arguments.a: expected number');
    expect(text).toContain('arguments.b: required field is missing');
    expect(text).toContain('arguments.c: unexpected field');
    expect(ran).toBe(false);
  });

  it('answers an unknown tool with -32602', async () => {
    const { modern } = setup([sum]);
    const res = await modern('tools/call', { name: 'nope', arguments: {} });
    expect(res.error).toEqual({ code: -32602, message: 'Unknown tool: nope' });
  });

  it('answers non-object arguments with -32602', async () => {
    const { modern } = setup([sum]);
    expect((await modern('tools/call', { name: 'calculate_sum', arguments: [1, 2] })).error.code).toBe(-32602);
  });

  it('reports ToolError messages to the model as they are', async () => {
    const { modern } = setup([
      {
        ...sum,
        handler: () => {
          throw new ToolError('b must not be zero; pass a non-zero divisor');
        },
      },
    ]);
    const res = await modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 0 } });
    expect(res.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'b must not be zero; pass a non-zero divisor' }] });
  });

  it('hides unexpected errors behind a correlation id that the log also has', async () => {
    const { modern, records } = setup([
      {
        ...sum,
        handler: () => {
          throw new Error('ECONNREFUSED 10.0.0.5:5432 at /srv/app/secret.js');
        },
      },
    ]);
    const res = await modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } });
    const text = res.result.content[0].text as string;
    expect(res.result.isError).toBe(true);
    expect(text).not.toMatch(/ECONNREFUSED|\/srv|secret|at /);
    const id = /correlation id ([0-9a-f-]{36})/.exec(text)?.[1];
    expect(id).toBeDefined();
    expect(records.find((r) => r.correlationId === id)?.err?.message).toMatch(/ECONNREFUSED/);
  });

  it('turns a returned value into structuredContent plus its JSON text for tools with an outputSchema', async () => {
    const { modern } = setup([
      {
        name: 'stats',
        description: 'x',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        handler: () => ({ n: 3 }),
      },
    ]);
    const res = await modern('tools/call', { name: 'stats', arguments: {} });
    expect(res.result.structuredContent).toEqual({ n: 3 });
    expect(JSON.parse(res.result.content[0].text)).toEqual({ n: 3 });
  });

  it("serializes a returned structuredContent once per call, and a result object returned twice carries each call's value", async () => {
    let serialized = 0;
    const state = { calls: 0 };
    const structuredContent = { toJSON: () => (serialized++, { ...state }) };
    const result = { content: [{ type: 'text' as const, text: 'counted' }], structuredContent };
    const { modern, initialize, request } = setup([
      { name: 'count', description: 'x', inputSchema: { type: 'object' }, handler: () => (state.calls++, result) },
    ]);
    expect((await modern('tools/call', { name: 'count', arguments: {} })).result.structuredContent).toEqual({ calls: 1 });
    expect(serialized).toBe(1);
    await initialize();
    expect((await request('tools/call', { name: 'count', arguments: {} })).result.structuredContent).toEqual({ calls: 2 });
    expect(serialized).toBe(2);
  });

  it('still answers, and stops counting the request as pending, when the logger throws while reporting a failure', async () => {
    const server = new ToolServer({
      logger: throwingLogger(),
      audit: false,
      tools: [
        {
          ...sum,
          handler: () => {
            throw new Error('boom');
          },
        },
      ],
    });
    const { modern, session } = wire(server);
    const res = await modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } });
    expect(res.error).toEqual({ code: -32603, message: 'Internal error' });
    // Nothing is left pending: a drain with a minute's grace ends at once.
    await session.drain(60_000);
  });

  it('never sends structuredContent that breaks the outputSchema', async () => {
    const { modern, records } = setup([
      {
        name: 'stats',
        description: 'x',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        handler: () => ({ n: 'three' }),
      },
    ]);
    const res = await modern('tools/call', { name: 'stats', arguments: {} });
    expect(res.result.isError).toBe(true);
    expect(res.result.structuredContent).toBeUndefined();
    expect(records.some((r) => /outputSchema/.test(String(r.detail)))).toBe(true);
  });

  it('refuses invalid content blocks from a handler instead of sending them', async () => {
    const { modern } = setup([{ ...sum, handler: () => ({ content: [{ type: 'image', data: '%%%', mimeType: 'image/png' }] }) }]);
    const res = await modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } });
    expect(res.result.isError).toBe(true);
    expect(res.result.content[0].text).toMatch(/internal error/);
  });

  it('passes full results with every content type through', async () => {
    const content = [
      { type: 'text', text: 't' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///x', name: 'x' },
      { type: 'resource', resource: { uri: 'test://x', text: 'x', mimeType: 'text/plain' } },
    ];
    const { modern } = setup([{ ...sum, handler: () => ({ content }) }]);
    expect((await modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } })).result.content).toEqual(content);
  });

  it('gives zod handlers the parsed output (defaults applied)', async () => {
    const { modern } = setup([
      {
        name: 'greet',
        description: 'x',
        inputSchema: z.object({ name: z.string(), greeting: z.string().default('Hello') }),
        handler: ({ name, greeting }) => `${greeting}, ${name}`,
      },
    ]);
    expect((await modern('tools/call', { name: 'greet', arguments: { name: 'Ada' } })).result.content[0].text).toBe('Hello, Ada');
  });

  it('times out a handler, aborts its signal and drops its late result', async () => {
    let aborted = false;
    const { modern } = setup([
      {
        ...sum,
        timeoutMs: 50,
        handler: (_args, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              aborted = true;
            });
            setTimeout(() => resolve('late'), 200);
          }),
      },
    ]);
    const res = await modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } });
    expect(res.result).toMatchObject({ isError: true });
    expect(res.result.content[0].text).toMatch(/^Tool calculate_sum timed out after 50 ms;/);
    expect(aborted).toBe(true);
  });

  it('sends increasing progress only when asked, and none after the result', async () => {
    let later: (() => void) | undefined;
    const { modern, written } = setup([
      {
        ...sum,
        handler: (_a, ctx) => {
          ctx.progress(1, 3);
          ctx.progress(1, 3);
          ctx.progress(0.5);
          ctx.progress(2, 3, 'half');
          later = () => ctx.progress(3, 3);
          return 'ok';
        },
      },
    ]);
    await modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } }, { progressToken: 'tok' });
    later!();
    const progress = written.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
    expect(progress).toEqual([
      { progressToken: 'tok', progress: 1, total: 3 },
      { progressToken: 'tok', progress: 2, total: 3, message: 'half' },
    ]);
    await modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } });
    expect(written.filter((m) => m.method === 'notifications/progress')).toHaveLength(2);
  });

  it('sends log messages only at or above the level the request asked for', async () => {
    const { modern, written } = setup([
      {
        ...sum,
        handler: (_a, ctx) => {
          ctx.log('debug', 'noise');
          ctx.log('error', { failed: true }, 'db');
          return 'ok';
        },
      },
    ]);
    await modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } });
    expect(written.filter((m) => m.method === 'notifications/message')).toHaveLength(0);
    await modern('tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } }, { 'io.modelcontextprotocol/logLevel': 'warning' });
    expect(written.filter((m) => m.method === 'notifications/message').map((m) => m.params)).toEqual([
      { level: 'error', data: { failed: true }, logger: 'db' },
    ]);
  });
});
