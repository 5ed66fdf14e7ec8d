import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePrompt, PromptDefinitionError } from '../../../../src/server/primitives/prompts/index.js';
import { ToolServer } from '../../../../src/server/server.js';
import { memoryLogger, wire } from '../../../helpers/wire.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const tick = () => new Promise((r) => setImmediate(r));

const prompts = [
  definePrompt({ name: 'simple', description: 'A simple prompt', get: () => 'This is a simple prompt for testing.' }),
  definePrompt({
    name: 'with_args',
    title: 'With arguments',
    description: 'Two arguments',
    arguments: [
      { name: 'arg1', description: 'First', required: true },
      { name: 'arg2', description: 'Second' },
    ],
    get: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2 ?? ''}'`,
  }),
  definePrompt({
    name: 'typed',
    description: 'Arguments from a Standard Schema',
    argumentsSchema: z.object({ language: z.enum(['python', 'typescript']).describe('The language'), code: z.string().min(1) }),
    get: ({ language, code }) => ({ description: `Review of ${language}`, messages: [{ role: 'user', content: `Review this ${language}:\n${code}` }] }),
  }),
  definePrompt({
    name: 'media',
    description: 'Embedded resource and image',
    arguments: [{ name: 'resourceUri', required: true }],
    get: ({ resourceUri }) => [
      { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'assistant', content: { type: 'text', text: 'Noted.' } },
    ],
  }),
  definePrompt({ name: 'broken', description: 'returns junk', get: () => [{ role: 'system', content: 'x' }] as any }),
];

const setup = () => {
  const server = new ToolServer({ logger: memoryLogger().logger, audit: false, prompts });
  return { server, ...wire(server) };
};

describe('prompts/list', () => {
  it('lists every prompt with its arguments, derived from a schema where one is given', async () => {
    const res = await setup().modern('prompts/list');
    expect(res.result).toMatchObject({ resultType: 'complete', ttlMs: 300000, cacheScope: 'public' });
    const byName = Object.fromEntries(res.result.prompts.map((p: any) => [p.name, p]));
    expect(byName.simple).toEqual({ name: 'simple', description: 'A simple prompt' });
    expect(byName.with_args).toEqual({
      name: 'with_args',
      title: 'With arguments',
      description: 'Two arguments',
      arguments: [
        { name: 'arg1', description: 'First', required: true },
        { name: 'arg2', description: 'Second' },
      ],
    });
    expect(byName.typed.arguments).toEqual([
      { name: 'language', description: 'The language', required: true },
      { name: 'code', required: true },
    ]);
  });
});

describe('prompts/get', () => {
  it('returns the messages, substituting the arguments', async () => {
    const w = setup();
    expect((await w.modern('prompts/get', { name: 'simple' })).result).toEqual({
      resultType: 'complete',
      description: 'A simple prompt',
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
      _meta: expect.any(Object),
    });
    const res = await w.modern('prompts/get', { name: 'with_args', arguments: { arg1: 'hello', arg2: 'world' } });
    expect(res.result.messages[0].content.text).toBe("Prompt with arguments: arg1='hello', arg2='world'");
  });

  it('carries embedded resources, images and assistant turns', async () => {
    const res = await setup().modern('prompts/get', { name: 'media', arguments: { resourceUri: 'test://example-resource' } });
    expect(res.result.messages.map((m: any) => [m.role, m.content.type])).toEqual([
      ['user', 'resource'],
      ['user', 'image'],
      ['assistant', 'text'],
    ]);
    expect(res.result.messages[0].content.resource.uri).toBe('test://example-resource');
  });

  it('checks the arguments first: missing, unknown or non-string ones are -32602', async () => {
    const w = setup();
    const cases = [
      { name: 'with_args', arguments: {} },
      { name: 'with_args', arguments: { arg1: 'a', extra: 'b' } },
      { name: 'with_args', arguments: { arg1: 1 } },
      { name: 'with_args', arguments: 'arg1=a' },
      { name: 'typed', arguments: { language: 'cobol', code: 'x' } },
      { name: 'nope' },
      { name: 7 },
    ];
    for (const params of cases) expect((await w.modern('prompts/get', params)).error.code, JSON.stringify(params)).toBe(-32602);
    const missing = await w.modern('prompts/get', { name: 'with_args', arguments: {} });
    expect(missing.error.message).toMatch(/arg1/);
  });

  it("gives the handler the Standard Schema's parsed arguments and its own description", async () => {
    const res = await setup().modern('prompts/get', { name: 'typed', arguments: { language: 'python', code: 'print(1)' } });
    expect(res.result.description).toBe('Review of python');
    expect(res.result.messages[0].content.text).toBe('Review this python:\nprint(1)');
  });

  it('never sends an invalid prompt result: -32603 instead', async () => {
    expect((await setup().modern('prompts/get', { name: 'broken' })).error.code).toBe(-32603);
  });

  it('serves legacy sessions with plain results', async () => {
    const w = setup();
    await w.initialize();
    expect((await w.request('prompts/get', { name: 'simple' })).result).toEqual({
      description: 'A simple prompt',
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    });
  });
});

describe('registration and list changes', () => {
  it('refuses invalid prompts at registration', () => {
    const { server } = setup();
    const bad: any[] = [
      { name: 'has space', get: () => '' },
      { name: 'simple', get: () => '' },
      { name: 'x' },
      { name: 'x', arguments: [{ name: 'a' }, { name: 'a' }], get: () => '' },
      { name: 'x', arguments: [], argumentsSchema: { type: 'object' }, get: () => '' },
      { name: 'x', argumentsSchema: { type: 'string' }, get: () => '' },
      { name: 'x', arguments: [{ name: 'a' }], complete: { b: () => [] }, get: () => '' },
    ];
    for (const p of bad) expect(() => server.prompts.add(p), JSON.stringify(p)).toThrow(PromptDefinitionError);
    expect(server.prompts.size).toBe(prompts.length);
  });

  it('tells listen streams that asked, and legacy sessions, when the list changes', async () => {
    const modern = setup();
    modern.send({
      jsonrpc: '2.0',
      id: 9,
      method: 'subscriptions/listen',
      params: {
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
        notifications: { promptsListChanged: true },
      },
    });
    modern.server.prompts.add({ name: 'later', get: () => 'l' });
    modern.server.prompts.remove('simple');
    await tick();
    expect(modern.written.map((m) => m.method)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/prompts/list_changed']);
    expect((await modern.modern('prompts/list')).result.prompts.map((p: any) => p.name)).toContain('later');

    const legacy = setup();
    await legacy.initialize();
    legacy.server.prompts.remove('simple');
    await tick();
    expect(legacy.written.filter((m) => m.method === 'notifications/prompts/list_changed')).toHaveLength(1);
  });
});
