import { describe, expect, it } from 'vitest';
import { ANONYMOUS_CALLER, callerFrom, callerKey, type Caller } from '../../../src/policy/auth/caller.js';
import { PassThrough } from 'node:stream';
import { definePrompt } from '../../../src/server/primitives/prompts/index.js';
import { ToolServer } from '../../../src/server/server.js';
import { defineTool } from '../../../src/server/tool.js';
import { serveStdio } from '../../../src/transports/stdio-server.js';
import { modernMeta } from '../../helpers/wire.js';

const caller = (id: string, tenant?: string): Caller => ({ id, claims: {}, method: 'custom', ...(tenant !== undefined ? { tenant } : {}) });

describe('callerKey', () => {
  it('is the id itself for a caller without a tenant (what stores held before tenants), and "" for the anonymous caller', () => {
    expect(callerKey(caller('alice'))).toBe('alice');
    expect(callerKey(ANONYMOUS_CALLER)).toBe('');
    // Its id says who it is in a log line; its key stays apart from a principal of that name.
    expect(ANONYMOUS_CALLER.id).toBe('anonymous');
    expect(callerKey(caller('anonymous'))).toBe('anonymous');
  });

  it('never gives two different (tenant, id) pairs one key, whatever characters they hold', () => {
    const hostile = [
      'alice',
      'acme',
      '',
      '\u0000',
      '["acme","alice"]',
      '[null,"alice"]',
      '[',
      'acme\u0000alice',
      'a"b',
      'null',
      '\\',
      '["acme"',
      'alice"]',
      'acme:alice',
      'acme/alice',
    ];
    const pairs: Array<[string | undefined, string]> = [];
    for (const id of hostile.filter(Boolean)) {
      pairs.push([undefined, id]);
      for (const tenant of hostile.filter(Boolean)) pairs.push([tenant, id]);
    }
    const keys = new Map<string, string>();
    for (const [tenant, id] of pairs) {
      const key = callerKey(caller(id, tenant));
      const pair = JSON.stringify([tenant ?? null, id]);
      expect(keys.get(key) ?? pair, `${pair} and ${keys.get(key)} share a key`).toBe(pair);
      keys.set(key, pair);
    }
    expect(keys.size).toBe(pairs.length);
    // PostgreSQL text cannot hold a NUL: no key does, whatever the id.
    expect([...keys.keys()].filter((key) => key.includes('\u0000'))).toEqual([]);
  });
});

describe('callerFrom (what server.connect accepts as a caller)', () => {
  it('makes a bare id a transport caller without scopes, and undefined the anonymous caller', () => {
    expect(callerFrom('alice')).toEqual({ id: 'alice', claims: {}, method: 'transport' });
    expect(callerFrom(undefined)).toBe(ANONYMOUS_CALLER);
  });

  it('keeps a well-formed caller object as it is (caches keyed by the verified object keep working)', () => {
    const given = caller('bob', 'acme');
    expect(callerFrom(given)).toBe(given);
  });

  it('refuses a caller that would be anonymous or carries a bad tenant or scopes, and never lets one claim to be anonymous', () => {
    expect(() => callerFrom({ id: '' } as Caller)).toThrow(TypeError);
    expect(() => callerFrom({ id: 'x', tenant: '' } as Caller)).toThrow(/tenant/);
    expect(() => callerFrom({ id: 'x', scopes: 'a b' } as unknown as Caller)).toThrow(/scopes/);
    expect(callerFrom({ id: 'x', claims: {}, method: 'anonymous' })).toMatchObject({ id: 'x', method: 'transport' });
  });
});

describe('ctx.caller over server.connect', () => {
  const server = new ToolServer({
    audit: false,
    tools: [
      defineTool({
        name: 'whoami',
        description: 'd',
        inputSchema: { type: 'object' },
        handler: (_a, ctx) => ({ content: [], structuredContent: { caller: ctx.caller, principal: ctx.principal ?? null, auth: ctx.auth ?? null } }),
      }),
    ],
  });
  const whoami = async (given?: string | Caller) => {
    const connection = server.connect({ transport: 'test', ...(given !== undefined ? { caller: given } : {}) });
    const reply = await connection.receive(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: modernMeta() } }),
    );
    return JSON.parse(reply!.json).result.structuredContent;
  };

  it('is the anonymous caller without one (principal and auth stay undefined, as before)', async () => {
    expect(await whoami()).toEqual({ caller: { id: 'anonymous', claims: {}, method: 'anonymous' }, principal: null, auth: null });
  });

  it("is a transport caller for a bare id (stdio's principal): principal is its id, auth stays undefined", async () => {
    expect(await whoami('alice')).toEqual({ caller: { id: 'alice', claims: {}, method: 'transport' }, principal: 'alice', auth: null });
  });

  it('is the object a transport verified, tenant included', async () => {
    const given: Caller = { id: 'carol', clientId: 'app', scopes: ['a'], claims: { sub: 'carol' }, method: 'custom', tenant: 'acme' };
    expect(await whoami(given)).toEqual({ caller: given, principal: 'carol', auth: given });
  });
});

describe('ctx.caller beyond tools', () => {
  it("is the same caller in a prompt's context", async () => {
    const server = new ToolServer({ audit: false, prompts: [definePrompt({ name: 'who', get: (_args, ctx) => `${ctx.caller.tenant}/${ctx.caller.id}` })] });
    const connection = server.connect({ transport: 'test', caller: { id: 'carol', claims: {}, method: 'custom', tenant: 'acme' } });
    const reply = await connection.receive(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'who', _meta: modernMeta() } }));
    expect(JSON.parse(reply!.json).result.messages[0].content.text).toBe('acme/carol');
  });

  it('is the caller serveStdio was given (a tenant from the environment), or its principal as a transport caller', async () => {
    const server = new ToolServer({
      audit: false,
      tools: [defineTool({ name: 'whoami', description: 'd', inputSchema: { type: 'object' }, handler: (_a, ctx) => JSON.stringify(ctx.caller) })],
    });
    const ask = async (options: Parameters<typeof serveStdio>[1]) => {
      const input = new PassThrough();
      const output = new PassThrough();
      const handle = serveStdio(server, { ...options, input, output });
      const line = new Promise<string>((resolve) => output.once('data', (chunk: Buffer) => resolve(chunk.toString())));
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: modernMeta() } })}\n`);
      const text = JSON.parse(await line).result.content[0].text;
      await handle.close();
      return JSON.parse(text);
    };
    expect(await ask({ principal: 'dave' })).toEqual({ id: 'dave', claims: {}, method: 'transport' });
    expect(await ask({ caller: { id: 'dave', claims: {}, method: 'transport', tenant: 'acme' } })).toEqual({
      id: 'dave',
      claims: {},
      method: 'transport',
      tenant: 'acme',
    });
  });
});
