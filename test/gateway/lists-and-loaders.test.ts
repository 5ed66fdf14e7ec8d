/**
 * Large upstream lists (followed page by page), the per-upstream concurrency cap, and the
 * loader map: a `tools` loader (what an OpenAPI document gives) is one entry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mount, UPSTREAM_LOADERS, type MountHandle } from '../../src/gateway/index.js';
import { defineTool, type Tool } from '../../src/server/tool.js';
import { ToolServer } from '../../src/server/server.js';
import { createInMemoryPair } from '../../src/testing.js';
import { memoryLogger } from '../helpers/wire.js';
import { gatewayServer } from './helpers.js';

const opened: MountHandle[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
});

describe('large lists', () => {
  it('mounts every tool of an upstream that lists them 10 to a page', async () => {
    const upstream = new ToolServer({ audit: false, tasks: false, pageSize: 10, logger: memoryLogger().logger });
    for (let i = 0; i < 250; i++)
      upstream.addTool(defineTool({ name: `t${i}`, description: `tool ${i}`, inputSchema: { type: 'object' }, handler: () => `${i}` }));
    const { server } = gatewayServer();
    const m = mount(server, 'big', { server: upstream });
    opened.push(m);
    await m.ready;
    expect(server.tools.size).toBe(250);
    expect(server.tools.has('big_t249')).toBe(true);
  });
});

describe('cached upstream lists', () => {
  it('serves tools/list from what it registered, and lists the upstream again only on list_changed', async () => {
    const upstream = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
    let listings = 0;
    upstream.use('tools/list', async (_ctx, next) => (listings++, next()));
    upstream.addTool(defineTool({ name: 'one', description: 'first', inputSchema: { type: 'object' }, handler: () => '1' }));
    const { server } = gatewayServer();
    const m = mount(server, 'up', { server: upstream });
    opened.push(m);
    await m.ready;
    const { client, close } = await createInMemoryPair(server);
    try {
      for (let i = 0; i < 5; i++) expect((await client.listTools({ refresh: true })).map((t) => t.name)).toEqual(['up_one']);
      expect(listings).toBe(1);
      upstream.addTool(defineTool({ name: 'two', description: 'second', inputSchema: { type: 'object' }, handler: () => '2' }));
      await expect.poll(() => server.tools.has('up_two'), { timeout: 5_000 }).toBe(true);
      expect(listings).toBe(2);
      expect((await client.listTools({ refresh: true })).map((t) => t.name).sort()).toEqual(['up_one', 'up_two']);
      expect(listings).toBe(2);
    } finally {
      await close();
    }
  });
});

describe('maxConcurrency', () => {
  it('lets only that many calls reach the upstream at once; the rest wait their turn', async () => {
    let running = 0;
    let most = 0;
    const upstream = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
    upstream.addTool(
      defineTool({
        name: 'work',
        description: 'takes a moment',
        inputSchema: { type: 'object' },
        handler: async () => {
          most = Math.max(most, ++running);
          await new Promise((r) => setTimeout(r, 30));
          running--;
          return 'done';
        },
      }),
    );
    const { server } = gatewayServer();
    const m = mount(server, 'up', { server: upstream }, { maxConcurrency: 2 });
    opened.push(m);
    await m.ready;
    const { client, close } = await createInMemoryPair(server);
    try {
      const results = await Promise.all(Array.from({ length: 8 }, () => client.callTool('up_work', {})));
      expect(results.every((r) => !r.isError)).toBe(true);
      expect(most).toBe(2);
    } finally {
      await close();
    }
  });
});

describe('the loader map', () => {
  it('a tools loader (as OpenAPI is wired) mounts its tools with the same names and transforms', async () => {
    const tools: Tool[] = [
      defineTool({
        name: 'getPet',
        description: 'a pet',
        inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
        handler: (a) => `pet ${a.id}`,
      }),
      defineTool({ name: 'deletePet', description: 'gone', inputSchema: { type: 'object' }, handler: () => 'deleted' }),
    ];
    const previous = UPSTREAM_LOADERS.openapi;
    UPSTREAM_LOADERS.openapi = { kind: 'tools', load: async () => ({ tools, notes: ['1 operation left out'] }) };
    try {
      const { server, records } = gatewayServer();
      const m = mount(server, 'pets', { openapi: './petstore.yaml' }, { exclude: ['deletePet'], tools: { getPet: { fixedArguments: { id: '7' } } } });
      opened.push(m);
      await m.ready;
      expect(server.tools.names()).toEqual(['pets_getPet']);
      expect(records.some((r) => String(r.msg).includes('1 operation left out'))).toBe(true);
      const { client, close } = await createInMemoryPair(server);
      try {
        expect((await client.callTool('pets_getPet', {})).content).toEqual([{ type: 'text', text: 'pet 7' }]);
      } finally {
        await close();
      }
    } finally {
      UPSTREAM_LOADERS.openapi = previous;
    }
  });

  it('without an OpenAPI loader, an OpenAPI upstream is refused saying so', () => {
    const previous = UPSTREAM_LOADERS.openapi;
    delete UPSTREAM_LOADERS.openapi;
    try {
      expect(() => mount(gatewayServer().server, 'pets', { openapi: './x.yaml' })).toThrow(/openapi upstreams are not available/);
    } finally {
      if (previous) UPSTREAM_LOADERS.openapi = previous;
    }
  });
});
