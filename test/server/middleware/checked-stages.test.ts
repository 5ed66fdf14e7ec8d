import { describe, expect, it } from 'vitest';
import type { Caller } from '../../../src/policy/auth/caller.js';
import { definePrompt } from '../../../src/server/primitives/prompts/index.js';
import { defineResource, defineResourceTemplate } from '../../../src/server/primitives/resources/index.js';
import { ToolServer, type ToolServerOptions } from '../../../src/server/server.js';
import { memoryLogger, modernMeta } from '../../helpers/wire.js';

type Msg = Record<string, any>;

/**
 * prompts/get, resources/read and completion/complete run their built-in
 * checks as stages before the user middleware (docs/middleware.md "Where
 * user middleware runs"), as tools/call does: the entry found and
 * authorized, the caller rate-limited, the arguments checked. A request
 * the server refuses never reaches a middleware, and is refused exactly as
 * it is without one.
 */
function makeServer(options: ToolServerOptions = {}) {
  return new ToolServer({
    logger: memoryLogger().logger,
    audit: false,
    tasks: false,
    prompts: [
      definePrompt({ name: 'greet', arguments: [{ name: 'who', required: true }], get: ({ who }) => `hello ${who}` }),
      definePrompt({ name: 'payroll', scopes: ['hr'], arguments: [{ name: 'who' }], complete: { who: () => ['ada'] }, get: () => 'salaries' }),
      definePrompt({ name: 'board', visibilityScopes: ['board'], get: () => 'minutes' }),
    ],
    resources: [
      defineResource({ uri: 'docs://open', name: 'open', read: () => 'open' }),
      defineResource({ uri: 'docs://hr', name: 'hr', scopes: ['hr'], read: () => 'hr' }),
    ],
    resourceTemplates: [
      defineResourceTemplate({
        uriTemplate: 'db://{table}',
        name: 'table',
        variables: { type: 'object', properties: { table: { type: 'string', enum: ['users', 'orders'] } } },
        complete: { table: (typed) => ['users', 'orders'].filter((t) => t.startsWith(typed)) },
        read: (_uri, v: { table: string }) => `table ${v.table}`,
      }),
    ],
    ...options,
  });
}

const carol: Caller = { id: 'carol', scopes: ['docs'], claims: {}, method: 'custom' };

/** A connection for `carol` (scopes: docs) in one era; `call` answers with the JSON-RPC reply. */
async function connect(server: ToolServer, era: 'modern' | 'legacy', caller: Caller = carol) {
  const connection = server.connect({ transport: 'test', caller });
  let id = 0;
  const call = async (method: string, params: Msg = {}): Promise<Msg> => {
    const withEra = era === 'modern' ? { ...params, _meta: modernMeta() } : params;
    const reply = await connection.receive(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: withEra }));
    const { id: _id, ...rest } = JSON.parse(reply!.json) as Msg;
    return { ...rest, status: reply!.status };
  };
  if (era === 'legacy') await call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  return call;
}

/** A server whose middleware for the three methods records what it saw. */
function watched(options: ToolServerOptions = {}) {
  const server = makeServer(options);
  const seen: Msg[] = [];
  for (const method of ['prompts/get', 'resources/read', 'completion/complete']) {
    server.use(method, (ctx: any, next) => {
      seen.push({ method, params: ctx.params, prompt: ctx.prompt?.name, resource: ctx.resource?.name });
      return next();
    });
  }
  return { server, seen };
}

const REFUSED_FOR_SCOPES: Array<[string, Msg]> = [
  // Known of, scopes lacking: 403 with what it needs.
  ['prompts/get', { name: 'payroll', arguments: { who: 'ada' } }],
  ['resources/read', { uri: 'docs://hr' }],
  ['completion/complete', { ref: { type: 'ref/prompt', name: 'payroll' }, argument: { name: 'who', value: 'a' } }],
  // Not to be known of: exactly as a missing one.
  ['prompts/get', { name: 'board' }],
  ['completion/complete', { ref: { type: 'ref/prompt', name: 'board' }, argument: { name: 'x', value: '' } }],
];

describe.each(['modern', 'legacy'] as const)('built-in checks before user middleware, %s era', (era) => {
  it('a caller without the scopes is refused before any middleware runs, exactly as without middleware', async () => {
    const plain = await connect(makeServer(), era);
    const { server, seen } = watched();
    const call = await connect(server, era);
    for (const [method, params] of REFUSED_FOR_SCOPES) {
      const expected = await plain(method, params);
      expect(expected.error, method).toBeDefined();
      expect(await call(method, params), `${method} ${JSON.stringify(params)}`).toEqual(expected);
    }
    const missing = await plain('prompts/get', { name: 'missing' });
    expect(await call('prompts/get', { name: 'board' })).toEqual({ ...missing, error: { ...missing.error, message: 'Unknown prompt: board' } });
    expect(seen).toEqual([]);
    // The same requests from a caller with the scopes reach it.
    const hr = await connect(server, era, { ...carol, scopes: ['docs', 'hr', 'board'] });
    for (const [method, params] of REFUSED_FOR_SCOPES.slice(0, 3)) expect((await hr(method, params)).error, method).toBeUndefined();
    expect(seen.map((s) => s.method)).toEqual(['prompts/get', 'resources/read', 'completion/complete']);
  });

  it('a rate-limited request never reaches the middleware; it is refused as without one', async () => {
    const limits = { rateLimit: { perPrincipal: { points: 1, durationSeconds: 600 } } };
    for (const [method, params] of [
      ['prompts/get', { name: 'greet', arguments: { who: 'ada' } }],
      ['resources/read', { uri: 'docs://open' }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'db://{table}' }, argument: { name: 'table', value: 'u' } }],
    ] as Array<[string, Msg]>) {
      const plain = await connect(makeServer({ limits }), era);
      expect((await plain(method, params)).error, method).toBeUndefined();
      const refused = await plain(method, params);
      expect(refused.error, method).toMatchObject({ code: -32000 });
      const { server, seen } = watched({ limits });
      const call = await connect(server, era);
      expect((await call(method, params)).error, method).toBeUndefined();
      // The same refusal (its retry time aside, which the clock moves).
      const again = await call(method, params);
      expect({ ...again, error: { ...again.error, data: undefined } }, method).toEqual({ ...refused, error: { ...refused.error, data: undefined } });
      expect(seen.length, method).toBe(1);
    }
  });

  it('a middleware sees the entry found and the arguments checked; invalid ones never reach it', async () => {
    const { server, seen } = watched();
    const call = await connect(server, era);
    // Refused by the checks: a missing required argument, a variable its schema refuses, an argument the prompt does not have.
    expect((await call('prompts/get', { name: 'greet', arguments: {} })).error).toMatchObject({ code: -32602 });
    expect((await call('prompts/get', { name: 'greet', arguments: { who: 7 } })).error).toMatchObject({ code: -32602 });
    expect((await call('resources/read', { uri: 'db://secrets' })).error).toMatchObject({ code: -32602 });
    expect((await call('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'nope', value: '' } })).error).toMatchObject({
      code: -32602,
    });
    expect(seen).toEqual([]);
    expect((await call('prompts/get', { name: 'greet', arguments: { who: 'ada' } })).result.messages[0].content.text).toBe('hello ada');
    expect((await call('resources/read', { uri: 'db://users' })).result.contents[0].text).toBe('table users');
    const completion = { ref: { type: 'ref/resource', uri: 'db://{table}' }, argument: { name: 'table', value: 'o' } };
    expect((await call('completion/complete', completion)).result.completion.values).toEqual(['orders']);
    expect(seen).toEqual([
      { method: 'prompts/get', params: { name: 'greet', arguments: { who: 'ada' } }, prompt: 'greet', resource: undefined },
      { method: 'resources/read', params: { uri: 'db://users' }, prompt: undefined, resource: 'table' },
      { method: 'completion/complete', params: expect.objectContaining(completion), prompt: undefined, resource: undefined },
    ]);
  });

  it('what a middleware changes is what the handler uses; naming another entry has it found and authorized again', async () => {
    const server = makeServer();
    server.use('prompts/get', (ctx, next) => {
      if (ctx.params.arguments?.who === 'boss') ctx.params = { name: 'payroll', arguments: {} };
      else ctx.params.arguments = { who: `${ctx.params.arguments?.who}!` };
      return next();
    });
    server.use('resources/read', (ctx, next) => {
      if (ctx.params.uri === 'docs://open') ctx.params.uri = 'docs://hr';
      return next();
    });
    server.use('completion/complete', (ctx, next) => {
      ctx.params = { ...ctx.params, argument: { name: 'table', value: 'u' } };
      return next();
    });
    const call = await connect(server, era);
    expect((await call('prompts/get', { name: 'greet', arguments: { who: 'ada' } })).result.messages[0].content.text).toBe('hello ada!');
    const boss = await call('prompts/get', { name: 'greet', arguments: { who: 'boss' } });
    expect(boss.status).toBe(403);
    expect(boss.error).toBeDefined();
    expect((await call('resources/read', { uri: 'docs://open' })).status).toBe(403);
    const completion = { ref: { type: 'ref/resource', uri: 'db://{table}' }, argument: { name: 'table', value: 'o' } };
    expect((await call('completion/complete', completion)).result.completion.values).toEqual(['users']);
  });
});

it('resources/subscribe (legacy): a resource the caller may not read is acknowledged as without middleware, which never sees it; a bad uri is refused first', async () => {
  const { server, seen } = watched();
  server.use('resources/subscribe', (ctx, next) => {
    seen.push({ method: 'resources/subscribe', params: ctx.params });
    return next();
  });
  const call = await connect(server, 'legacy');
  const plain = await connect(makeServer(), 'legacy');
  expect(await call('resources/subscribe', { uri: 'docs://hr' })).toEqual(await plain('resources/subscribe', { uri: 'docs://hr' }));
  expect((await call('resources/subscribe', { uri: '' })).error).toMatchObject({ code: -32602 });
  expect(seen).toEqual([]);
  expect((await call('resources/subscribe', { uri: 'docs://open' })).result).toEqual({});
  expect(seen).toEqual([{ method: 'resources/subscribe', params: { uri: 'docs://open' } }]);
});
