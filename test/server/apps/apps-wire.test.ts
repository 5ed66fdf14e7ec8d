/**
 * MCP Apps (SEP-1865) on the wire: a tool declared with defineAppTool lists
 * `_meta.ui.resourceUri` (and the deprecated flat key), and its app resource
 * reads back as `text/html;profile=mcp-app` with `_meta.ui`, through the
 * official SDK client in both eras over real HTTP.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAppResource, defineAppTool, MCP_APP_MIME_TYPE } from '../../../src/index.js';
import { ToolServer } from '../../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../../src/transports/http-server.js';
import { memoryLogger } from '../../helpers/wire.js';

const HTML = '<!doctype html><html><body><p id="n">0</p></body></html>';
const counterApp = defineAppResource({
  uri: 'ui://counter/view',
  name: 'counter-view',
  description: 'Shows the counter',
  html: HTML,
  csp: { connectDomains: ['https://api.example.com'] },
  prefersBorder: true,
});
const showCounter = defineAppTool({
  name: 'show_counter',
  description: 'Show the counter',
  inputSchema: { type: 'object', properties: { start: { type: 'number' } } },
  app: counterApp,
  handler: ({ start }) => ({ content: [{ type: 'text', text: String(start ?? 0) }], structuredContent: { count: start ?? 0 } }),
});
const bump = defineAppTool({
  name: 'bump_counter',
  description: 'Adds one (called by the app)',
  inputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
  app: 'ui://counter/view',
  visibility: ['app'],
  handler: ({ count }) => String(count + 1),
});

let http: HttpServerHandle;
beforeAll(async () => {
  const server = new ToolServer({
    name: 'apps',
    version: '1.0.0',
    logger: memoryLogger().logger,
    audit: false,
    tools: [showCounter, bump],
    resources: [counterApp],
  });
  http = await serveHttp(server, { port: 0 });
});
afterAll(() => http?.close());

type AnyClient = {
  listTools(): Promise<{ tools: Array<{ name: string; _meta?: Record<string, unknown> }> }>;
  listResources(): Promise<{ resources: Array<Record<string, unknown>> }>;
  readResource(p: { uri: string }): Promise<{ contents: Array<Record<string, unknown>> }>;
};

async function exercise(client: AnyClient) {
  const tools = (await client.listTools()).tools;
  const show = tools.find((t) => t.name === 'show_counter');
  expect(show?._meta).toEqual({ ui: { resourceUri: 'ui://counter/view' }, 'ui/resourceUri': 'ui://counter/view' });
  expect(tools.find((t) => t.name === 'bump_counter')?._meta).toEqual({
    ui: { resourceUri: 'ui://counter/view', visibility: ['app'] },
    'ui/resourceUri': 'ui://counter/view',
  });
  const listed = (await client.listResources()).resources.find((r) => r.uri === 'ui://counter/view');
  expect(listed).toMatchObject({ mimeType: MCP_APP_MIME_TYPE, _meta: { ui: { prefersBorder: true } } });
  expect((await client.readResource({ uri: 'ui://counter/view' })).contents).toEqual([
    {
      uri: 'ui://counter/view',
      mimeType: 'text/html;profile=mcp-app',
      text: HTML,
      _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } },
    },
  ]);
}

describe('MCP Apps definitions on the wire', () => {
  it.each([['modern'], ['legacy']] as const)('@modelcontextprotocol/client 2.x, %s era', async (era) => {
    const options = era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
    const client = new ClientV2({ name: 'apps', version: '1.0.0' }, options as never);
    await client.connect(new HttpV2(new URL(http.url)), { timeout: 10_000 });
    try {
      expect(client.getProtocolEra()).toBe(era);
      await exercise(client as unknown as AnyClient);
    } finally {
      await client.close();
    }
  });

  it('@modelcontextprotocol/sdk 1.x (legacy era)', async () => {
    const client = new ClientV1({ name: 'apps-v1', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(http.url)));
    try {
      await exercise(client as unknown as AnyClient);
    } finally {
      await client.close();
    }
  });
});
