import { describe, expect, it } from 'vitest';
import { MethodTable, ok, type Primitive } from '../../../src/server/primitives/index.js';
import { definePrompt } from '../../../src/server/primitives/prompts/index.js';
import { ToolServer } from '../../../src/server/server.js';
import { memoryLogger, wire } from '../../helpers/wire.js';

describe('the method table primitives register into', () => {
  it('refuses a second handler for the same method and era (two modules claiming one method is a bug)', () => {
    const table = new MethodTable();
    table.add('x/y', { modern: (r) => ok(r, '{}') });
    table.add('x/y', { legacy: (r) => ok(r, '{}') });
    expect(() => table.add('x/y', { modern: (r) => ok(r, '{}') })).toThrow(/already served in the modern era/);
    expect(table.methods('modern')).toEqual(['x/y']);
    expect(table.methods('legacy')).toEqual(['x/y']);
  });

  it('counts a method declared by its phases as served: a handler for the same era is refused', () => {
    const table = new MethodTable();
    const phases = { services: { logger: memoryLogger().logger }, target: () => 'x', run: () => ({}) };
    table.declare('x/z', ['legacy'], phases);
    expect(() => table.add('x/z', { legacy: (r) => ok(r, '{}') })).toThrow(/already served in the legacy era/);
    table.add('x/z', { modern: (r) => ok(r, '{}') });
    expect(table.methods('legacy')).toEqual(['x/z']);
    expect(() => table.wrap('x/z', 'legacy', (inner) => inner)).not.toThrow();
  });

  it('wraps only a method that is served in that era', () => {
    const table = new MethodTable();
    table.add('x/y', { modern: (r) => ok(r, '{"n":1}') });
    expect(() => table.wrap('x/y', 'legacy', (inner) => inner)).toThrow(/not served in the legacy era/);
    expect(() => table.wrap('nope', 'modern', (inner) => inner)).toThrow(/not served/);
  });
});

describe('a primitive plugged into the server', () => {
  // What the tasks module will do: add a method, wrap tools/call, advertise an extension.
  const plugin: Primitive = {
    advertise(capabilities, era) {
      if (era === 'modern') capabilities.extensions = { 'example.com/plugin': {} };
    },
    register(methods) {
      methods.add('plugin/echo', { modern: (request) => ok(request, JSON.stringify({ resultType: 'complete', echoed: request.params?.say })) });
      methods.wrap('tools/call', 'modern', (inner) => async (request, exchange, facts) => {
        if (request.params?.name === 'intercepted')
          return ok(request, JSON.stringify({ resultType: 'complete', content: [{ type: 'text', text: 'by the plugin' }] }));
        return inner(request, exchange, facts);
      });
    },
  };
  const server = () =>
    new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [{ name: 'plain', description: 'd', inputSchema: { type: 'object' }, handler: () => 'by the tool' }],
      primitives: () => [plugin],
    });

  it('serves its own method in the era it registered, and -32601 in the other', async () => {
    const w = wire(server());
    expect((await w.modern('plugin/echo', { say: 'hi' })).result.echoed).toBe('hi');
    await w.initialize();
    expect((await w.request('plugin/echo', { say: 'hi' })).error.code).toBe(-32601);
  });

  it('wraps tools/call of one era, leaving the inner handler reachable and the other era untouched', async () => {
    const w = wire(server());
    expect((await w.modern('tools/call', { name: 'intercepted', arguments: {} })).result.content[0].text).toBe('by the plugin');
    expect((await w.modern('tools/call', { name: 'plain', arguments: {} })).result.content[0].text).toBe('by the tool');
    await w.initialize();
    expect((await w.request('tools/call', { name: 'intercepted', arguments: {} })).error.code).toBe(-32602);
  });

  it('adds its capabilities beside the standard ones, per era', async () => {
    const w = wire(server());
    const discovered = (await w.modern('server/discover')).result.capabilities;
    expect(discovered.extensions).toMatchObject({ 'example.com/plugin': {} });
    expect(discovered.tools).toEqual({ listChanged: true });
    const legacy = (await w.initialize()).result.capabilities;
    expect(legacy.extensions?.['example.com/plugin']).toBeUndefined();
    expect(legacy.tools).toEqual({ listChanged: true });
  });
});

describe('a primitive wrapping a method declared by its phases', () => {
  const greet = definePrompt({ name: 'greet', arguments: [{ name: 'who', required: true }], get: ({ who }) => `hello ${who}` });
  const server = () => {
    const s = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      prompts: [greet],
      primitives: () => [
        {
          register(methods) {
            methods.wrap('prompts/get', 'modern', (inner) => async (request, exchange, facts, tracked) => {
              if (request.params?.name === 'intercepted') return { messages: [{ role: 'user', content: { type: 'text', text: 'by the plugin' } }] };
              return inner(request, exchange, facts, tracked);
            });
          },
        },
      ],
    });
    return s;
  };

  it('answers what it intercepts; the rest still runs the phases (prompt found, arguments checked) and the user middleware', async () => {
    const s = server();
    const seen: string[] = [];
    s.use('prompts/get', (ctx, next) => {
      seen.push(String(ctx.params.name));
      return next();
    });
    const w = wire(s);
    expect((await w.modern('prompts/get', { name: 'intercepted' })).result.messages[0].content.text).toBe('by the plugin');
    expect((await w.modern('prompts/get', { name: 'greet', arguments: { who: 'ada' } })).result.messages[0].content.text).toBe('hello ada');
    expect((await w.modern('prompts/get', { name: 'greet', arguments: {} })).error.code).toBe(-32602);
    expect((await w.modern('prompts/get', { name: 'missing' })).error.message).toBe('Unknown prompt: missing');
    // The wrapped era's middleware runs around the wrapper; the legacy era is untouched.
    expect(seen).toEqual(['intercepted', 'greet', 'greet', 'missing']);
    await w.initialize();
    expect((await w.request('prompts/get', { name: 'intercepted' })).error.message).toBe('Unknown prompt: intercepted');
  });
});
