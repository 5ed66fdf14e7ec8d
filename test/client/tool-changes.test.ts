import { afterEach, describe, expect, it } from 'vitest';
import { ToolClient } from '../../src/client/client.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool, type Tool } from '../../src/server/tool.js';
import { createInMemoryPair } from '../../src/testing.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';

const tool = (name: string) =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
    handler: () => name,
  }) as Tool;

let cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const done of cleanup.reverse()) await done();
  cleanup = [];
});

function server(): ToolServer {
  const s = new ToolServer({ name: 'changing', logger: createLogger('silent'), audit: false, tools: [tool('first')] });
  cleanup.push(() => s.close());
  return s;
}

describe('onToolsListChanged', () => {
  it('over HTTP (modern era: a subscriptions/listen stream) it hears that a tool was added, and the next listing has it', async () => {
    const era = 'modern';
    const s = server();
    const http: HttpServerHandle = await serveHttp(s, { port: 0 });
    cleanup.push(() => http.close());
    let changes = 0;
    const client = await ToolClient.connect({ url: http.url }, { era, onToolsListChanged: () => changes++ });
    cleanup.push(() => client.close());
    expect((await client.listTools()).map((t) => t.name)).toEqual(['first']);
    // The subscription is open once the server acknowledged it; a change before that would be missed, so poll.
    await expect.poll(() => (s.addTool(tool(`second${changes}`)), changes), { timeout: 10_000, interval: 200 }).toBeGreaterThan(0);
    expect((await client.listTools()).map((t) => t.name)).toContain('second0');
  });

  it.each(['modern', 'legacy'] as const)('in memory (%s era) it hears a removal', async (era) => {
    const s = server();
    s.addTool(tool('doomed'));
    let changes = 0;
    const pair = await createInMemoryPair(s, { era, onToolsListChanged: () => changes++ });
    cleanup.push(() => pair.close());
    expect((await pair.client.listTools()).map((t) => t.name)).toEqual(['first', 'doomed']);
    await expect.poll(() => (s.tools.remove('doomed'), changes), { timeout: 10_000, interval: 200 }).toBeGreaterThan(0);
    expect((await pair.client.listTools()).map((t) => t.name)).toEqual(['first']);
  });
});

describe('readResource', () => {
  it('reads the resource_link of a result too large to send inline', async () => {
    const big = 'x'.repeat(20_000);
    const s = new ToolServer({
      name: 'big',
      logger: createLogger('silent'),
      audit: false,
      limits: { maxResultBytes: 4_000 },
      tools: [
        defineTool({
          name: 'dump',
          description: 'Dumps a lot.',
          inputSchema: { type: 'object', properties: {} },
          annotations: { readOnlyHint: true },
          handler: () => big,
        }) as Tool,
      ],
    });
    cleanup.push(() => s.close());
    const pair = await createInMemoryPair(s);
    cleanup.push(() => pair.close());
    const result = await pair.client.callTool('dump');
    const link = result.content.find((b) => b.type === 'resource_link');
    expect(link).toBeDefined();
    const read = await pair.client.readResource((link as { uri: string }).uri);
    expect(read.contents).toHaveLength(1);
    expect((read.contents[0] as { text: string }).text).toBe(big);
  });

  it('an unknown uri is the server error, not a crash', async () => {
    const pair = await createInMemoryPair(server());
    cleanup.push(() => pair.close());
    await expect(pair.client.readResource('toolwright://results/nope')).rejects.toThrow(/Resource not found/);
  });
});
