import { describe, expect, it } from 'vitest';
import { RequestStateCodec } from '../../src/server/inputs/request-state.js';
import { ToolServer, type ToolServerOptions } from '../../src/server/server.js';
import type { Tool } from '../../src/server/tool.js';
import { memoryLogger, wire } from '../helpers/wire.js';

const ELICIT = { elicitation: {} };
const nameSchema = { type: 'object' as const, properties: { name: { type: 'string' } }, required: ['name'] };

function setup(tools: Tool[], options: ToolServerOptions = {}) {
  return wire(new ToolServer({ logger: memoryLogger().logger, tools, ...options }));
}

const greet: Tool = {
  name: 'greet',
  description: 'Greets the user by name.',
  inputSchema: { type: 'object' },
  handler: async (_a, ctx) => {
    const answer = await ctx.elicit('What is your name?', nameSchema, { key: 'user_name' });
    return `Hello, ${answer.content?.name}!`;
  },
};

describe('requestState', () => {
  const codec = new RequestStateCodec('secret', 60_000);
  const binding = { tool: 't', args: { b: 1, a: [1, 2] }, principal: 'alice' };

  it('round-trips the answers, whatever the key order of the arguments', () => {
    const state = codec.seal(binding, { q: { action: 'accept' } });
    expect(codec.open(state, { ...binding, args: { a: [1, 2], b: 1 } })).toEqual({ q: { action: 'accept' } });
  });

  it.each([
    ['tampered', (s: string) => `${s}-TAMPERED`, binding],
    ['truncated', (s: string) => s.slice(0, -3), binding],
    ['garbage', () => 'not.a.state', binding],
    ['for another tool', (s: string) => s, { ...binding, tool: 'other' }],
    ['for other arguments', (s: string) => s, { ...binding, args: { b: 2, a: [1, 2] } }],
    ['from another caller', (s: string) => s, { ...binding, principal: 'mallory' }],
  ])('refuses state that is %s with -32602', (_label, mutate, openWith) => {
    expect(() => codec.open(mutate(codec.seal(binding, {})), openWith)).toThrow(expect.objectContaining({ code: -32602 }));
  });

  it('refuses expired state and state signed with another key', () => {
    const expired = new RequestStateCodec('secret', -1).seal(binding, {});
    expect(() => codec.open(expired, binding)).toThrow(/expired/);
    const foreign = new RequestStateCodec('other-secret', 60_000).seal(binding, {});
    expect(() => codec.open(foreign, binding)).toThrow(/integrity/);
  });
});

describe('asking for input, modern era (MRTR)', () => {
  it('answers with an InputRequiredResult, then completes on the retry', async () => {
    const w = setup([greet]);
    const first = await w.modern('tools/call', { name: 'greet', arguments: {} }, { 'io.modelcontextprotocol/clientCapabilities': ELICIT });
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { user_name: { method: 'elicitation/create', params: { message: 'What is your name?', requestedSchema: nameSchema } } },
    });
    expect(typeof first.result.requestState).toBe('string');
    const retry = await w.modern(
      'tools/call',
      {
        name: 'greet',
        arguments: {},
        inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } }, unrelated: { x: 1 } },
        requestState: first.result.requestState,
      },
      { 'io.modelcontextprotocol/clientCapabilities': ELICIT },
    );
    expect(retry.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Ada!' }] });
  });

  it('gathers questions asked together into one result, and carries answers across rounds', async () => {
    const tool: Tool = {
      name: 'survey',
      description: 'x',
      inputSchema: { type: 'object' },
      handler: async (_a, ctx) => {
        const [who, roots] = await Promise.all([ctx.elicit('Who?', nameSchema), ctx.listRoots()]);
        const more = await ctx.sample({ messages: [], maxTokens: 5 });
        return `${who.content?.name} ${roots.roots.length} ${more.model}`;
      },
    };
    const caps = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, roots: {}, sampling: {} } };
    const w = setup([tool]);
    const r1 = await w.modern('tools/call', { name: 'survey', arguments: {} }, caps);
    expect(Object.keys(r1.result.inputRequests)).toEqual(['elicitation_1', 'roots_1']);
    const r2 = await w.modern(
      'tools/call',
      {
        name: 'survey',
        arguments: {},
        requestState: r1.result.requestState,
        inputResponses: { elicitation_1: { action: 'accept', content: { name: 'Bo' } }, roots_1: { roots: [{ uri: 'file:///a' }] } },
      },
      caps,
    );
    expect(Object.keys(r2.result.inputRequests)).toEqual(['sampling_1']);
    expect(r2.result.requestState).not.toBe(r1.result.requestState);
    const r3 = await w.modern(
      'tools/call',
      {
        name: 'survey',
        arguments: {},
        requestState: r2.result.requestState,
        inputResponses: { sampling_1: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm1' } },
      },
      caps,
    );
    expect(r3.result.content[0].text).toBe('Bo 1 m1');
  });

  it('asks again when an answer is missing or malformed', async () => {
    const w = setup([greet]);
    const caps = { 'io.modelcontextprotocol/clientCapabilities': ELICIT };
    const res = await w.modern('tools/call', { name: 'greet', arguments: {}, inputResponses: { user_name: 12345 } }, caps);
    expect(res.result.resultType).toBe('input_required');
  });

  it('refuses inputResponses that are not an object, and tampered state, with -32602', async () => {
    const w = setup([greet]);
    const caps = { 'io.modelcontextprotocol/clientCapabilities': ELICIT };
    expect((await w.modern('tools/call', { name: 'greet', arguments: {}, inputResponses: null }, caps)).error.code).toBe(-32602);
    const first = await w.modern('tools/call', { name: 'greet', arguments: {} }, caps);
    const res = await w.modern(
      'tools/call',
      {
        name: 'greet',
        arguments: {},
        requestState: `${first.result.requestState}x`,
        inputResponses: { user_name: { action: 'accept', content: { name: 'Eve' } } },
      },
      caps,
    );
    expect(res.error).toMatchObject({ code: -32602, message: 'requestState integrity check failed' });
  });

  it('never asks what the client cannot answer: -32021 naming the capability', async () => {
    const res = await setup([greet]).modern('tools/call', { name: 'greet', arguments: {} });
    expect(res.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });
});

describe('asking for input, legacy era', () => {
  it('sends elicitation/create to the client and continues with its answer', async () => {
    const w = setup([greet]);
    await w.request('initialize', { protocolVersion: '2025-11-25', capabilities: ELICIT, clientInfo: { name: 't', version: '1' } });
    const pending = w.request('tools/call', { name: 'greet', arguments: {} });
    await new Promise((r) => setTimeout(r, 10));
    const ask = w.written.find((m) => m.method === 'elicitation/create');
    expect(ask?.params).toEqual({ message: 'What is your name?', requestedSchema: nameSchema });
    w.send({ jsonrpc: '2.0', id: ask!.id, result: { action: 'accept', content: { name: 'Lin' } } });
    expect((await pending).result).toEqual({ content: [{ type: 'text', text: 'Hello, Lin!' }] });
  });

  it('reports a missing capability as an isError result', async () => {
    const w = setup([greet]);
    await w.initialize();
    const res = await w.request('tools/call', { name: 'greet', arguments: {} });
    expect(res.result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/elicitation/) }] });
  });
});

describe('approval of destructive tools', () => {
  let ran = 0;
  const destroy: Tool = {
    name: 'delete_everything',
    description: 'Deletes everything.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    annotations: { destructiveHint: true },
    handler: () => {
      ran++;
      return 'deleted';
    },
  };
  const caps = { 'io.modelcontextprotocol/clientCapabilities': ELICIT };

  it('asks the user, showing the tool and its arguments, and runs only after a yes', async () => {
    ran = 0;
    const w = setup([destroy]);
    const first = await w.modern('tools/call', { name: 'delete_everything', arguments: { path: '/data' } }, caps);
    const question = first.result.inputRequests.toolwright_approval;
    expect(question.method).toBe('elicitation/create');
    expect(question.params.message).toContain('delete_everything');
    expect(question.params.message).toContain('"/data"');
    expect(ran).toBe(0);
    const yes = await w.modern(
      'tools/call',
      {
        name: 'delete_everything',
        arguments: { path: '/data' },
        requestState: first.result.requestState,
        inputResponses: { toolwright_approval: { action: 'accept', content: { approve: true } } },
      },
      caps,
    );
    expect(yes.result.content[0].text).toBe('deleted');
    expect(ran).toBe(1);
  });

  it.each([
    ['declines', { action: 'decline' }],
    ['cancels', { action: 'cancel' }],
    ['accepts without approving', { action: 'accept', content: { approve: false } }],
  ])('does not run when the user %s', async (_label, answer) => {
    ran = 0;
    const w = setup([destroy]);
    const first = await w.modern('tools/call', { name: 'delete_everything', arguments: {} }, caps);
    const res = await w.modern(
      'tools/call',
      { name: 'delete_everything', arguments: {}, requestState: first.result.requestState, inputResponses: { toolwright_approval: answer } },
      caps,
    );
    expect(res.result.isError).toBe(true);
    expect(res.result.content[0].text).toMatch(/did not approve/);
    expect(ran).toBe(0);
  });

  it.each([
    ['a field of its own', { approve: true, note: 'ok' }, /unknown field "note"/],
    ['another field', { approved: true }, /unknown field "approved"/],
    ['no field', {}, /no "approve" field/],
    ['no content', undefined, /no "approve" field/],
    ['a string', { approve: 'yes' }, /"approve" is "yes", not true or false/],
  ])('refuses an accepted approval answer with %s, naming the expected field, and does not run', async (_label, content, why) => {
    ran = 0;
    const w = setup([destroy]);
    const first = await w.modern('tools/call', { name: 'delete_everything', arguments: {} }, caps);
    const answer = { action: 'accept', ...(content === undefined ? {} : { content }) };
    const res = await w.modern(
      'tools/call',
      { name: 'delete_everything', arguments: {}, requestState: first.result.requestState, inputResponses: { toolwright_approval: answer } },
      caps,
    );
    expect(res.result.isError).toBe(true);
    const text: string = res.result.content[0].text;
    expect(text).toMatch(why);
    expect(text).toContain('The approval answer for delete_everything was not understood');
    expect(text).toContain('the form has one field, "approve", a boolean: true runs the tool, false does not. The tool was not run.');
    expect(text).not.toMatch(/did not approve/);
    expect(ran).toBe(0);
  });

  it('lets a tool decide per call whether the call needs approval, from its arguments', async () => {
    let runs = 0;
    const perCall: Tool = {
      name: 'maybe_destroy',
      description: 'x',
      inputSchema: { type: 'object', properties: { dry: { type: 'boolean' } } },
      annotations: { destructiveHint: true }, // a hint for clients; the hook decides for the server
      needsApproval: (args) => args.dry !== true,
      handler: () => {
        runs++;
        return 'done';
      },
    };
    const throwing: Tool = {
      ...perCall,
      name: 'undecided',
      annotations: {},
      needsApproval: () => {
        throw new Error('cannot tell');
      },
    };
    const w = setup([perCall, throwing]);
    expect((await w.modern('tools/call', { name: 'maybe_destroy', arguments: { dry: true } }, caps)).result.content[0].text).toBe('done');
    expect((await w.modern('tools/call', { name: 'maybe_destroy', arguments: { dry: false } }, caps)).result.resultType).toBe('input_required');
    expect((await w.modern('tools/call', { name: 'undecided', arguments: {} }, caps)).result.resultType).toBe('input_required');
    expect(runs).toBe(1);
    // The server's mode still wins: 'always' asks even where the hook would not.
    expect(
      (await setup([perCall], { approval: 'always' }).modern('tools/call', { name: 'maybe_destroy', arguments: { dry: true } }, caps)).result.resultType,
    ).toBe('input_required');
    expect(() => setup([{ ...perCall, needsApproval: 'no' as never }])).toThrow(/needsApproval must be a function/);
  });

  it('never runs unconfirmed when the client cannot ask the user', async () => {
    ran = 0;
    const res = await setup([destroy]).modern('tools/call', { name: 'delete_everything', arguments: {} });
    expect(res.result.isError).toBe(true);
    expect(res.result.content[0].text).toMatch(/needs the user's approval/);
    expect(ran).toBe(0);
  });

  it('can be required for every tool, or turned off', async () => {
    const plain: Tool = { name: 'plain', description: 'x', inputSchema: { type: 'object' }, handler: () => 'ran' };
    const always = await setup([plain], { approval: 'always' }).modern('tools/call', { name: 'plain', arguments: {} }, caps);
    expect(always.result.resultType).toBe('input_required');
    ran = 0;
    const never = await setup([destroy], { approval: 'never' }).modern('tools/call', { name: 'delete_everything', arguments: {} }, caps);
    expect(never.result.content[0].text).toBe('deleted');
  });

  it('asks legacy clients with a real elicitation request', async () => {
    ran = 0;
    const w = setup([destroy]);
    await w.request('initialize', { protocolVersion: '2025-11-25', capabilities: ELICIT, clientInfo: { name: 't', version: '1' } });
    const pending = w.request('tools/call', { name: 'delete_everything', arguments: {} });
    await new Promise((r) => setTimeout(r, 10));
    const ask = w.written.find((m) => m.method === 'elicitation/create');
    w.send({ jsonrpc: '2.0', id: ask!.id, result: { action: 'decline' } });
    expect((await pending).result.isError).toBe(true);
    expect(ran).toBe(0);
  });
});
