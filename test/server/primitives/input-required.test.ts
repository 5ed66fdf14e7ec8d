import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../../src/server/server.js';
import { memoryLogger, wire } from '../../helpers/wire.js';

const ELICIT = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
const contextSchema = { type: 'object' as const, properties: { context: { type: 'string' } }, required: ['context'] };

function setup(timeoutMs?: number) {
  let reads = 0;
  const server = new ToolServer({
    logger: memoryLogger().logger,
    audit: false,
    timeoutMs,
    prompts: [
      {
        name: 'asks',
        arguments: [{ name: 'topic' }],
        get: async ({ topic }, ctx) => {
          const answer = await ctx.elicit('What context should the prompt use?', contextSchema, { key: 'user_context' });
          return `About ${topic ?? 'anything'} in ${answer.content?.context}`;
        },
      },
      { name: 'slow', get: (_a, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('late'))) },
    ],
    resources: [
      {
        uri: 'test://guarded',
        name: 'guarded',
        read: async (ctx) => {
          reads++;
          const answer = await ctx.elicit('Unlock?', { type: 'object', properties: { ok: { type: 'boolean' } } });
          return answer.action === 'accept' ? 'the secret' : 'locked';
        },
      },
    ],
  });
  return { ...wire(server), reads: () => reads };
}

describe('input required on prompts/get and resources/read (modern, mrtr.mdx)', () => {
  it('prompts/get answers with an InputRequiredResult, then completes on the retry with the answer', async () => {
    const w = setup();
    const first = await w.modern('prompts/get', { name: 'asks', arguments: { topic: 'cats' } }, ELICIT);
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        user_context: { method: 'elicitation/create', params: { message: 'What context should the prompt use?', requestedSchema: contextSchema } },
      },
    });
    const retry = await w.modern(
      'prompts/get',
      {
        name: 'asks',
        arguments: { topic: 'cats' },
        inputResponses: { user_context: { action: 'accept', content: { context: 'a vet clinic' } } },
        requestState: first.result.requestState,
      },
      ELICIT,
    );
    expect(retry.result).toMatchObject({ resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: 'About cats in a vet clinic' } }] });
  });

  it('binds requestState to the prompt, its arguments and the caller: another use of it is -32602', async () => {
    const w = setup();
    const first = await w.modern('prompts/get', { name: 'asks', arguments: { topic: 'cats' } }, ELICIT);
    const borrowed = await w.modern(
      'prompts/get',
      {
        name: 'asks',
        arguments: { topic: 'dogs' },
        inputResponses: { user_context: { action: 'accept', content: { context: 'x' } } },
        requestState: first.result.requestState,
      },
      ELICIT,
    );
    expect(borrowed.error.code).toBe(-32602);
    expect((await w.modern('prompts/get', { name: 'asks', requestState: 'forged.state' }, ELICIT)).error.code).toBe(-32602);
  });

  it('resources/read asks too, and the answered read carries no cache hints that would outlive the answer', async () => {
    const w = setup();
    const first = await w.modern('resources/read', { uri: 'test://guarded' }, ELICIT);
    expect(first.result.resultType).toBe('input_required');
    expect(first.result.ttlMs).toBeUndefined();
    const key = Object.keys(first.result.inputRequests)[0];
    const retry = await w.modern(
      'resources/read',
      { uri: 'test://guarded', inputResponses: { [key]: { action: 'accept', content: { ok: true } } }, requestState: first.result.requestState },
      ELICIT,
    );
    expect(retry.result).toMatchObject({ resultType: 'complete', contents: [{ text: 'the secret' }], ttlMs: 0, cacheScope: 'private' });
  });

  it('never asks a client that cannot answer: -32021 naming the capability', async () => {
    const res = await setup().modern('prompts/get', { name: 'asks' });
    expect(res.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });

  it('does not answer a request the client cancelled, and times out one that runs too long', async () => {
    const w = setup(200);
    const pending = w.modern('prompts/get', { name: 'slow' }, {});
    const timedOut = await pending;
    expect(timedOut.error).toMatchObject({ code: -32603, message: expect.stringMatching(/timed out/) });
    w.send({
      jsonrpc: '2.0',
      id: 'c1',
      method: 'prompts/get',
      params: { name: 'slow', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    });
    w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1' } });
    await new Promise((r) => setTimeout(r, 300));
    expect(w.written.some((m) => m.id === 'c1')).toBe(false);
  });
});

describe('input required on prompts/get, legacy era', () => {
  it("sends elicitation/create on the request's channel and continues with the answer", async () => {
    const w = setup();
    await w.request('initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '1' } });
    const pending = w.request('prompts/get', { name: 'asks' });
    await new Promise((r) => setTimeout(r, 10));
    const ask = w.written.find((m) => m.method === 'elicitation/create');
    expect(ask?.params.message).toBe('What context should the prompt use?');
    w.send({ jsonrpc: '2.0', id: ask!.id, result: { action: 'accept', content: { context: 'tests' } } });
    expect((await pending).result.messages[0].content.text).toBe('About anything in tests');
  });
});
