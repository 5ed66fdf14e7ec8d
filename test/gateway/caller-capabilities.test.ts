/**
 * What the conformance run through the gateway found: the upstream sees the calling client's input
 * capabilities (not the gateway's), its questions keep their keys, prompts may ask too, and
 * embedded resources pass through under the gateway's URIs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpRpcError } from '../../src/client/errors.js';
import { mount } from '../../src/gateway/index.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool } from '../../src/server/tool.js';
import { createInMemoryPair } from '../../src/testing.js';
import { memoryLogger } from '../helpers/wire.js';
import { gatewayServer } from './helpers.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function gateway() {
  const upstream = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
  upstream.addTool(
    defineTool({
      name: 'needs_sampling',
      description: 'needs sampling',
      inputSchema: { type: 'object' },
      handler: (_args, ctx) => (ctx.requireClientCapability('sampling'), 'sampled'),
    }),
    defineTool({
      name: 'asks_name',
      description: 'asks with its own key',
      inputSchema: { type: 'object' },
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit('Your name?', { type: 'object', properties: { name: { type: 'string' } } }, { key: 'user_name' });
        return `hello ${answer.content?.name ?? '?'}`;
      },
    }),
    defineTool({
      name: 'samples_context',
      description: "asks for a completion with the session's context",
      inputSchema: { type: 'object' },
      handler: async (_args, ctx) => {
        const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5, includeContext: 'thisServer' });
        return `sampled ${(answer.content as { text?: string }).text}`;
      },
    }),
    defineTool({
      name: 'embeds',
      description: 'embeds a resource',
      inputSchema: { type: 'object' },
      handler: () => ({ content: [{ type: 'resource', resource: { uri: 'test://doc', mimeType: 'text/plain', text: 'inside' } }] }),
    }),
  );
  upstream.prompts.add({
    name: 'greeting',
    get: async (_args, ctx) => {
      const answer = await ctx.elicit('Whom?', { type: 'object', properties: { who: { type: 'string' } } });
      return [{ role: 'user', content: { type: 'text', text: `greet ${answer.content?.who}` } }];
    },
  });
  const { server } = gatewayServer();
  const handle = mount(server, 'up', { server: upstream });
  closers.push(() => handle.close());
  await handle.ready;
  return server;
}

describe('through the gateway, as the caller', () => {
  it('a tool needing a capability the caller lacks is refused with -32021, as directly', async () => {
    const server = await gateway();
    const { client, close } = await createInMemoryPair(server, { era: 'modern' });
    closers.push(close);
    const err = await client.callTool('up_needs_sampling', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpRpcError);
    expect((err as McpRpcError).code).toBe(-32021);
    const sampling = await createInMemoryPair(server, { era: 'modern', onInputRequest: async () => ({ action: 'decline' }), inputCapabilities: ['sampling'] });
    closers.push(sampling.close);
    expect((await sampling.client.callTool('up_needs_sampling', {})).content).toEqual([{ type: 'text', text: 'sampled' }]);
  });

  it('an upstream question keeps its key, and prompts may ask the caller too', async () => {
    const server = await gateway();
    const keys: Array<string | undefined> = [];
    const { client, close } = await createInMemoryPair(server, {
      era: 'modern',
      onInputRequest: async (request) => {
        keys.push(request.key);
        return { action: 'accept', content: { name: 'Ada', who: 'Grace' } };
      },
    });
    closers.push(close);
    expect((await client.callTool('up_asks_name', {})).content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    expect(keys).toEqual(['user_name']);
    const prompt = await client.getPrompt('up_greeting');
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'greet Grace' } }]);
  });

  it('an upstream\'s includeContext is not passed on: the caller\'s "this server" is the gateway, all its upstreams', async () => {
    const server = await gateway();
    const asked: Array<Record<string, unknown>> = [];
    const { client, close } = await createInMemoryPair(server, {
      onInputRequest: async (request) => {
        asked.push(request.params as Record<string, unknown>);
        return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm', stopReason: 'endTurn' };
      },
      inputCapabilities: ['sampling'],
    });
    closers.push(close);
    expect((await client.callTool('up_samples_context', {})).content).toEqual([{ type: 'text', text: 'sampled ok' }]);
    expect(asked).toHaveLength(1);
    expect(asked[0].messages).toEqual([{ role: 'user', content: { type: 'text', text: 'hi' } }]);
    expect(asked[0].maxTokens).toBe(5);
    expect(asked[0].includeContext).toBeUndefined();
  });

  it('an embedded resource comes back under the gateway’s URI', async () => {
    const server = await gateway();
    const { client, close } = await createInMemoryPair(server);
    closers.push(close);
    const result = await client.callTool('up_embeds', {});
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'resource', resource: { uri: 'up+test://doc', mimeType: 'text/plain', text: 'inside' } }]);
  });
});
