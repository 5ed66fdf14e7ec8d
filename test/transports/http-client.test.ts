import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelledError, ToolClient, type ToolClientOptions } from '../../src/client.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';

// toolwright's client against toolwright's own HTTP server, on a real socket.
let handle: HttpServerHandle;
const cancelled: string[] = [];

beforeAll(async () => {
  const server = new ToolServer({ name: 'http-fixture', version: '2.0.0', logger: createLogger('silent') });
  server.addTool(
    {
      name: 'route',
      description: 'Echoes its region, which intermediaries route on',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, shard: { type: 'integer', 'x-mcp-header': 'Shard' }, query: { type: 'string' } },
        required: ['region'],
      },
      handler: ({ region, shard }) => `region=${region} shard=${shard}`,
    },
    {
      name: 'steps',
      description: 'Reports progress over the response stream',
      inputSchema: { type: 'object' },
      handler: async (_args, ctx) => {
        for (let i = 1; i <= 3; i++) {
          ctx.progress(i, 3, `step ${i}`);
          await new Promise((r) => setTimeout(r, 5));
        }
        return 'done';
      },
    },
    {
      name: 'hang',
      description: 'Runs until the client goes away',
      inputSchema: { type: 'object' },
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          ctx.progress(1);
          ctx.signal.addEventListener('abort', () => {
            cancelled.push(String(ctx.requestId));
            resolve('gone');
          });
        }),
    },
  );
  handle = await serveHttp(server, { port: 0 });
});
afterAll(() => handle.close());

async function withClient(options: ToolClientOptions, body: (client: ToolClient) => Promise<void>) {
  const client = await ToolClient.connect({ url: handle.url }, { onWarning: () => {}, ...options });
  try {
    await body(client);
  } finally {
    await client.close();
  }
}

describe('ToolClient over Streamable HTTP (toolwright server)', () => {
  for (const era of ['modern', 'legacy'] as const) {
    it(`detects or uses the ${era} era and calls tools`, async () => {
      await withClient({ era: era === 'modern' ? 'auto' : 'legacy' }, async (client) => {
        expect(client.era).toBe(era);
        expect(client.serverInfo?.name).toBe('http-fixture');
        expect((await client.listTools()).map((t) => t.name)).toEqual(['route', 'steps', 'hang']);
        const seen: string[] = [];
        const result = await client.callTool('steps', {}, { onProgress: (p) => seen.push(p.message ?? '') });
        expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
        expect(seen).toEqual(['step 1', 'step 2', 'step 3']);
      });
    });
  }

  it('mirrors x-mcp-header parameters, base64-encoding values that are not header-safe', async () => {
    // The server rejects the call (-32020) unless every Mcp-Param-* header matches the body.
    await withClient({}, async (client) => {
      const result = await client.callTool('route', { region: ' Zürich ', shard: 7, query: 'q' });
      expect(result.isError).toBeUndefined();
      expect(result.content).toEqual([{ type: 'text', text: 'region= Zürich  shard=7' }]);
    });
  });

  it('cancels by closing the response stream when the caller aborts', async () => {
    await withClient({}, async (client) => {
      const controller = new AbortController();
      const call = client.callTool('hang', {}, { signal: controller.signal, onProgress: () => controller.abort() });
      await expect(call).rejects.toBeInstanceOf(CancelledError);
      await expect.poll(() => cancelled.length).toBe(1);
    });
  });
});
