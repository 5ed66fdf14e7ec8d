/**
 * Names and transforms of mounted upstreams, on an in-process ToolServer upstream (the same relay
 * as stdio and HTTP: toolwright's client over the upstream's public `connect`).
 */
import { describe, expect, it } from 'vitest';
import { defineTool } from '../../src/server/tool.js';
import { ToolServer } from '../../src/server/server.js';
import { GatewayCollisionError, mount } from '../../src/gateway/index.js';
import { createInMemoryPair } from '../../src/testing.js';
import { memoryLogger } from '../helpers/wire.js';
import { gatewayServer } from './helpers.js';

function upstreamServer() {
  const seen: Array<Record<string, unknown>> = [];
  const server = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
  server.addTool(
    defineTool({
      name: 'search',
      description: 'Search the catalogue',
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string' }, limit: { type: 'number' }, tenant: { type: 'string' } },
        required: ['query', 'tenant'],
      },
      handler: (args) => {
        seen.push(args);
        return `found ${args.query} for ${args.tenant}`;
      },
    }),
    defineTool({
      name: 'drop_table',
      description: 'Drops a table',
      inputSchema: { type: 'object', properties: { table: { type: 'string' } } },
      handler: () => 'dropped',
    }),
    defineTool({ name: 'internal_debug', description: 'not for models', inputSchema: { type: 'object' }, handler: () => 'debug' }),
  );
  return { server, seen };
}

describe('names', () => {
  it('prefixes tools with the upstream name by default, with another prefix, or none', async () => {
    const { server } = gatewayServer();
    const a = mount(server, 'shop', { server: upstreamServer().server });
    const b = mount(server, 'other', { server: upstreamServer().server }, { prefix: 'crm' });
    const c = mount(server, 'bare', { server: upstreamServer().server }, { prefix: false, include: ['search'] });
    await Promise.all([a.ready, b.ready, c.ready]);
    expect(server.tools.names().sort()).toEqual(
      ['crm_drop_table', 'crm_internal_debug', 'crm_search', 'search', 'shop_drop_table', 'shop_internal_debug', 'shop_search'].sort(),
    );
    await Promise.all([a, b, c].map((m) => m.close()));
    expect(server.tools.names()).toEqual([]);
  });

  it('keeps the prefix on upstream tools named like Object.prototype members, whatever transforms are configured', async () => {
    // Looked up as a transform, "constructor" found Object (whose `name` is "Object") and "toString" a function named so: the tools left their prefix.
    const upstream = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
    for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'])
      upstream.addTool(defineTool({ name, description: 'named like a prototype member', inputSchema: { type: 'object' }, handler: () => `ran ${name}` }));
    const { server } = gatewayServer();
    const m = mount(server, 'up', { server: upstream }, { tools: { other: { title: 'Another tool' } } });
    await m.ready;
    expect(server.tools.names().sort()).toEqual(['up___proto__', 'up_constructor', 'up_hasOwnProperty', 'up_toString', 'up_valueOf']);
    const { client, close } = await createInMemoryPair(server);
    try {
      expect((await client.callTool('up_constructor', {})).content).toEqual([{ type: 'text', text: 'ran constructor' }]);
    } finally {
      await close();
      await m.close();
    }
  });

  it('refuses a name another source already holds, naming both sources', async () => {
    const { server } = gatewayServer();
    server.addTool(defineTool({ name: 'search', description: 'mine', inputSchema: { type: 'object' }, handler: () => 'mine' }));
    const first = mount(server, 'one', { server: upstreamServer().server }, { prefix: false, include: ['drop_table'] });
    await first.ready;
    const clashing = mount(server, 'two', { server: upstreamServer().server }, { prefix: false });
    const error = await clashing.ready.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GatewayCollisionError);
    expect((error as Error).message).toContain('tool "search" of upstream "two" clashes with the server\'s own tool');
    expect((error as Error).message).toContain('tool "drop_table" of upstream "two" clashes with upstream "one" tool');
    // The server's own tool and the first upstream's are untouched.
    expect(server.tools.get('search')?.tool.description).toBe('mine');
    await Promise.all([first.close(), clashing.close()]);
  });

  it('refuses a second mount of the same name', () => {
    const { server } = gatewayServer();
    const first = mount(server, 'one', { server: upstreamServer().server });
    expect(() => mount(server, 'one', { server: upstreamServer().server })).toThrow(GatewayCollisionError);
    void first.close();
  });

  it('refuses a name or prefix that would make invalid tool names', () => {
    const { server } = gatewayServer();
    expect(() => mount(server, 'a b', { server: upstreamServer().server })).toThrow(/upstream name "a b"/);
    expect(() => mount(server, 'ok', { server: upstreamServer().server }, { prefix: '<script>' })).toThrow(/prefix must be/);
  });
});

describe('transforms', () => {
  it('renames, describes, hides an argument with a fixed value, changes required, overrides annotations, excludes', async () => {
    const { server } = gatewayServer();
    const upstream = upstreamServer();
    const m = mount(
      server,
      'shop',
      { server: upstream.server },
      {
        exclude: ['internal_*'],
        tools: {
          search: { name: 'find_products', description: 'Find products by name', fixedArguments: { tenant: 'acme' }, optional: [], required: ['limit'] },
          drop_table: { annotations: { destructiveHint: true }, scopes: ['admin'] },
        },
      },
    );
    await m.ready;
    expect(server.tools.names().sort()).toEqual(['find_products', 'shop_drop_table']);
    const find = server.tools.get('find_products')!.tool;
    expect(find.description).toBe('Find products by name');
    expect(find.inputSchema).toMatchObject({ properties: { query: { type: 'string' }, limit: { type: 'number' } }, required: ['query', 'limit'] });
    expect(Object.keys((find.inputSchema as { properties: object }).properties)).not.toContain('tenant');
    const drop = server.tools.get('shop_drop_table')!.tool;
    expect(drop.annotations).toMatchObject({ destructiveHint: true });
    expect(drop.scopes).toEqual(['admin']);

    const { client, close } = await createInMemoryPair(server);
    try {
      // The client cannot set the hidden argument: the gateway's value overwrites whatever it sends.
      const found = await client.callTool('find_products', { query: 'lamp', limit: 3, tenant: 'evil' });
      expect(found.content).toEqual([{ type: 'text', text: 'found lamp for acme' }]);
      expect(upstream.seen).toEqual([{ query: 'lamp', limit: 3, tenant: 'acme' }]);
      const missing = await client.callTool('find_products', { query: 'lamp' });
      expect(missing.isError).toBe(true);
      expect(JSON.stringify(missing.content)).toContain('limit');
    } finally {
      await close();
      await m.close();
    }
  });

  it('makes a destructive upstream tool wait for approval, as any destructive tool', async () => {
    const { server } = gatewayServer();
    const m = mount(server, 'shop', { server: upstreamServer().server }, { tools: { drop_table: { annotations: { destructiveHint: true } } } });
    await m.ready;
    const asked: string[] = [];
    const { client, close } = await createInMemoryPair(server, {
      onInputRequest: async (request) => {
        asked.push(String(request.params.message));
        return { action: 'decline' };
      },
    });
    try {
      const refused = await client.callTool('shop_drop_table', { table: 'users' });
      expect(asked).toHaveLength(1);
      expect(refused.isError).toBe(true);
    } finally {
      await close();
      await m.close();
    }
  });
});
