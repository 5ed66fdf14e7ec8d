import { afterEach, describe, expect, it } from 'vitest';
import { InputRequiredError, McpRpcError, ProtocolViolationError, ToolClient } from '../../src/client.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { createInMemoryPair, type InMemoryPair } from '../../src/testing.js';
import { modernServer, scriptedTransport, type Script } from './scripted-server.js';

function server() {
  return new ToolServer({
    name: 'surface',
    version: '1.0.0',
    logger: createLogger('silent'),
    audit: false,
    pageSize: 2,
    resources: [
      { uri: 'test://a', name: 'a', mimeType: 'text/plain', read: () => 'A' },
      { uri: 'test://b', name: 'b', read: () => new Uint8Array([1, 2, 3]) },
      { uri: 'test://c', name: 'c', read: () => 'C' },
      {
        uri: 'test://asks',
        name: 'asks',
        read: async (ctx) =>
          (await ctx.elicit('Unlock?', { type: 'object', properties: { ok: { type: 'boolean' } } })).action === 'accept' ? 'open' : 'closed',
      },
    ],
    resourceTemplates: [
      { uriTemplate: 'test://t/{id}', name: 't', complete: { id: (v) => ['one', 'two'].filter((x) => x.startsWith(v)) }, read: (_u, { id }) => `t${id}` },
    ],
    prompts: [
      { name: 'hello', description: 'Says hello', arguments: [{ name: 'who', required: true }], get: ({ who }) => `Hello ${who}` },
      {
        name: 'asks',
        get: async (_a, ctx) => `Topic: ${(await ctx.elicit('Topic?', { type: 'object', properties: { topic: { type: 'string' } } })).content?.topic}`,
      },
    ],
  });
}

const answering = { onInputRequest: async () => ({ action: 'accept' as const, content: { ok: true, topic: 'tides' } }) };

describe.each(['modern', 'legacy'] as const)('ToolClient: resources, prompts and completion (%s era)', (era) => {
  let pair: InMemoryPair | undefined;
  afterEach(async () => pair?.close());

  it('lists every page of resources, templates and prompts', async () => {
    pair = await createInMemoryPair(server(), { era });
    expect((await pair.client.listResources()).map((r) => r.uri)).toEqual(['test://a', 'test://b', 'test://c', 'test://asks']);
    expect(await pair.client.listResourceTemplates()).toEqual([{ uriTemplate: 'test://t/{id}', name: 't' }]);
    expect(await pair.client.listPrompts()).toEqual([
      { name: 'hello', description: 'Says hello', arguments: [{ name: 'who', required: true }] },
      { name: 'asks' },
    ]);
  });

  it('reads text, blobs and templated resources', async () => {
    pair = await createInMemoryPair(server(), { era });
    expect((await pair.client.readResource('test://a')).contents).toEqual([{ uri: 'test://a', mimeType: 'text/plain', text: 'A' }]);
    expect((await pair.client.readResource('test://b')).contents[0]).toMatchObject({ blob: Buffer.from([1, 2, 3]).toString('base64') });
    expect((await pair.client.readResource('test://t/7')).contents[0]).toMatchObject({ text: 't7' });
    const missing = await pair.client.readResource('test://none').catch((e) => e);
    expect(missing).toBeInstanceOf(McpRpcError);
    expect(missing.code).toBe(-32602);
  });

  it('gets a prompt and completes arguments', async () => {
    pair = await createInMemoryPair(server(), { era });
    expect(await pair.client.getPrompt('hello', { who: 'Ada' })).toMatchObject({
      description: 'Says hello',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }],
    });
    expect(await pair.client.complete({ type: 'ref/resource', uri: 'test://t/{id}' }, { name: 'id', value: 't' })).toEqual({
      values: ['two'],
      total: 1,
      hasMore: false,
    });
    await expect(pair.client.getPrompt('hello', { who: 1 } as any)).rejects.toThrow(TypeError);
  });

  it("answers the server's questions on prompts/get and resources/read with onInputRequest", async () => {
    pair = await createInMemoryPair(server(), { era, ...answering });
    expect((await pair.client.getPrompt('asks')).messages[0].content).toEqual({ type: 'text', text: 'Topic: tides' });
    expect((await pair.client.readResource('test://asks')).contents[0]).toMatchObject({ text: 'open' });
  });
});

describe('ToolClient without an input handler', () => {
  it("reports a modern server's question on prompts/get as InputRequiredError", async () => {
    const { client } = await connect((request) =>
      request.method === 'prompts/get'
        ? {
            resultType: 'input_required',
            inputRequests: { q: { method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: {} } } } },
          }
        : undefined,
    );
    const err = await client.getPrompt('p').catch((e) => e);
    expect(err).toBeInstanceOf(InputRequiredError);
  });
});

async function connect(script: Script) {
  const warnings: string[] = [];
  const discover = modernServer([]);
  const transport = scriptedTransport((request, send) => (request.method === 'server/discover' ? discover(request, send) : script(request, send)));
  const client = await ToolClient.connect({ transport }, { onWarning: (w) => warnings.push(w) });
  return { client, warnings };
}

describe('ToolClient against a server that gets the shapes wrong', () => {
  it('refuses a malformed prompt result and a repeated cursor, and leaves out malformed list entries with a warning', async () => {
    const { client, warnings } = await connect((request) => {
      if (request.method === 'prompts/get') return { messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] };
      if (request.method === 'prompts/list') return { prompts: [{ name: 'ok' }], nextCursor: 'same' };
      if (request.method === 'resources/list') return { resources: [{ uri: 'test://x', name: 'x' }, { uri: 'test://y' }, 'junk'] };
      if (request.method === 'completion/complete') return { completion: { values: [1, 2] } };
      return undefined;
    });
    await expect(client.getPrompt('p')).rejects.toBeInstanceOf(ProtocolViolationError);
    await expect(client.listPrompts()).rejects.toThrow(/repeated a pagination cursor/);
    expect(await client.listResources()).toEqual([{ uri: 'test://x', name: 'x' }]);
    expect(warnings.filter((w) => w.includes('left out'))).toHaveLength(2);
    await expect(client.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' })).rejects.toBeInstanceOf(ProtocolViolationError);
    await client.close();
  });
});
