import { describe, expect, it } from 'vitest';
import { definePrompt, defineTool, ToolServer, type Caller } from '../../src/index.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';

// The deprecated `principal` and `auth` are derived from the caller, not read from the exchange:
// a caller a transport named by a bare id (stdio's principal) has a principal but no `auth`, as before.

const logger = memoryLogger().logger;
type Seen = { principal: unknown; auth: unknown; caller: string };
const seen: Record<string, Seen> = {};
const view = (ctx: { principal?: string; auth?: unknown; caller: Caller }): Seen => ({ principal: ctx.principal, auth: ctx.auth, caller: ctx.caller.id });

const who = defineTool({
  name: 'who',
  description: 'Says nothing; remembers who called.',
  inputSchema: { type: 'object' },
  handler: (_args, ctx) => {
    seen.tool = view(ctx);
    return 'ok';
  },
});

const greet = definePrompt({
  name: 'greet',
  description: 'Remembers who asked.',
  get: (_args, ctx) => {
    seen.prompt = view(ctx);
    return 'hello';
  },
});

async function callAs(caller: string | Caller | undefined): Promise<Record<string, Seen>> {
  for (const key of Object.keys(seen)) delete seen[key];
  const server = new ToolServer({ logger, audit: false, tools: [who], prompts: [greet] });
  server.use(async (ctx, next) => {
    seen[`middleware ${ctx.method}`] = view(ctx);
    return next();
  });
  const connection = server.connect({ transport: 'test', caller });
  const _meta = modernMeta();
  await connection.receive({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'who', arguments: {}, _meta } });
  await connection.receive({ jsonrpc: '2.0', id: 2, method: 'prompts/get', params: { name: 'greet', _meta } });
  await server.close();
  return { ...seen };
}

describe('the deprecated principal and auth, derived from the caller', () => {
  it('a caller named by a bare id has a principal and no auth, in tools, prompts and middleware', async () => {
    const all = await callAs('alice');
    expect(Object.keys(all).sort()).toEqual(['middleware prompts/get', 'middleware tools/call', 'prompt', 'tool']);
    for (const one of Object.values(all)) expect(one).toEqual({ principal: 'alice', auth: undefined, caller: 'alice' });
  });

  it('a caller given as an object is its own auth', async () => {
    const bob: Caller = { id: 'bob', scopes: ['notes:read'], claims: {}, method: 'custom' };
    for (const one of Object.values(await callAs(bob))) expect(one).toEqual({ principal: 'bob', auth: bob, caller: 'bob' });
  });

  it('nobody authenticated: neither', async () => {
    for (const one of Object.values(await callAs(undefined))) expect(one).toEqual({ principal: undefined, auth: undefined, caller: 'anonymous' });
  });
});
