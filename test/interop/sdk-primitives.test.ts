/**
 * The official SDK clients list and read toolwright's resources, get its
 * prompts (answering a question first), complete arguments and hear resource
 * updates: `@modelcontextprotocol/client` 2.x in both eras and
 * `@modelcontextprotocol/sdk` 1.x, over real HTTP.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { memoryLogger } from '../helpers/wire.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

let server: ToolServer;
let http: HttpServerHandle;
beforeAll(async () => {
  server = new ToolServer({
    name: 'toolwright-interop',
    version: '1.2.3',
    logger: memoryLogger().logger,
    audit: false,
    resources: [
      { uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain', read: () => 'static text' },
      { uri: 'test://static-binary', name: 'static-binary', mimeType: 'image/png', read: () => Buffer.from(PNG, 'base64') },
    ],
    resourceTemplates: [
      {
        uriTemplate: 'test://cities/{city}',
        name: 'cities',
        complete: { city: (v) => ['oslo', 'osaka', 'paris'].filter((c) => c.startsWith(v)) },
        read: (_u, { city }) => `About ${city}`,
      },
    ],
    prompts: [
      {
        name: 'trip',
        description: 'Plan a trip',
        arguments: [{ name: 'city', required: true }],
        complete: { city: (v) => ['oslo', 'osaka', 'paris'].filter((c) => c.startsWith(v)) },
        get: ({ city }) => [
          { role: 'user', content: `Plan a trip to ${city}` },
          { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'resource', resource: { uri: 'test://static-text', mimeType: 'text/plain', text: 'static text' } } },
        ],
      },
      {
        name: 'asks',
        get: async (_a, ctx) =>
          `Budget: ${(await ctx.elicit('What is the budget?', { type: 'object', properties: { budget: { type: 'string' } }, required: ['budget'] })).content?.budget}`,
      },
    ],
  });
  http = await serveHttp(server, { port: 0 });
});
afterAll(() => http?.close());

type AnyClient = {
  listResources(): Promise<{ resources: Array<{ uri: string }> }>;
  listResourceTemplates(): Promise<{ resourceTemplates: Array<{ uriTemplate: string }> }>;
  readResource(p: { uri: string }): Promise<{ contents: Array<Record<string, unknown>> }>;
  listPrompts(): Promise<{ prompts: Array<{ name: string; arguments?: unknown[] }> }>;
  getPrompt(p: { name: string; arguments?: Record<string, string> }): Promise<{ messages: Array<{ role: string; content: any }> }>;
  complete(p: unknown): Promise<{ completion: { values: string[] } }>;
};

/** What every client must see, whatever its era. */
async function exercise(client: AnyClient) {
  expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['test://static-text', 'test://static-binary']);
  expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['test://cities/{city}']);
  expect((await client.readResource({ uri: 'test://static-text' })).contents).toEqual([
    { uri: 'test://static-text', mimeType: 'text/plain', text: 'static text' },
  ]);
  expect((await client.readResource({ uri: 'test://static-binary' })).contents[0]).toMatchObject({ mimeType: 'image/png', blob: PNG });
  expect((await client.readResource({ uri: 'test://cities/oslo' })).contents[0]).toMatchObject({ text: 'About oslo' });
  await expect(client.readResource({ uri: 'test://nowhere' })).rejects.toMatchObject({ code: -32602 });

  expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['trip', 'asks']);
  const trip = await client.getPrompt({ name: 'trip', arguments: { city: 'oslo' } });
  expect(trip.messages.map((m) => m.content.type)).toEqual(['text', 'image', 'resource']);
  expect(trip.messages[0].content.text).toBe('Plan a trip to oslo');
  await expect(client.getPrompt({ name: 'trip', arguments: {} })).rejects.toMatchObject({ code: -32602 });

  const asked = await client.getPrompt({ name: 'asks' });
  expect(asked.messages[0].content.text).toBe('Budget: 900 EUR');

  expect((await client.complete({ ref: { type: 'ref/prompt', name: 'trip' }, argument: { name: 'city', value: 'os' } })).completion.values).toEqual([
    'oslo',
    'osaka',
  ]);
  expect(
    (await client.complete({ ref: { type: 'ref/resource', uri: 'test://cities/{city}' }, argument: { name: 'city', value: 'p' } })).completion.values,
  ).toEqual(['paris']);
}

const answer = async () => ({ action: 'accept' as const, content: { budget: '900 EUR' } });

describe('@modelcontextprotocol/client 2.x → toolwright resources, prompts, completion', () => {
  it.each([['modern'], ['legacy']] as const)('%s era over HTTP', async (era) => {
    const options = era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
    const client = new ClientV2({ name: 'interop', version: '1.0.0' }, { ...options, capabilities: { elicitation: {} } } as never);
    client.setRequestHandler('elicitation/create', answer as never);
    await client.connect(new HttpV2(new URL(http.url)), { timeout: 10_000 });
    try {
      expect(client.getProtocolEra()).toBe(era);
      expect(client.getServerCapabilities()).toMatchObject({
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
      });
      await exercise(client as unknown as AnyClient);
      // Updates of a watched resource: subscriptions/listen (modern) or resources/subscribe (legacy).
      const updated: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n: any) => void updated.push(n.params.uri));
      const stream = era === 'modern' ? await (client as any).listen({ resourceSubscriptions: ['test://static-text'] }) : undefined;
      if (era === 'legacy') await client.subscribeResource({ uri: 'test://static-text' });
      server.resources.updated('test://static-text');
      await expect.poll(() => updated, { timeout: 5_000 }).toEqual(['test://static-text']);
      await stream?.close();
    } finally {
      await client.close();
    }
  });
});

describe('@modelcontextprotocol/sdk 1.x → toolwright resources, prompts, completion (legacy era)', () => {
  it('over HTTP', async () => {
    const client = new ClientV1({ name: 'interop-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, answer);
    await client.connect(new HttpV1(new URL(http.url)));
    try {
      expect(client.getServerCapabilities()).toMatchObject({ resources: { subscribe: true }, prompts: {}, completions: {} });
      await exercise(client as unknown as AnyClient);
      const updated: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
      await client.subscribeResource({ uri: 'test://static-text' });
      server.resources.updated('test://static-text');
      await expect.poll(() => updated, { timeout: 5_000 }).toEqual(['test://static-text']);
      await client.unsubscribeResource({ uri: 'test://static-text' });
    } finally {
      await client.close();
    }
  });
});
