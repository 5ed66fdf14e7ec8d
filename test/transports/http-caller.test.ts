import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queryAuditLog } from '../../src/audit/query.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { hashApiKey } from '../../src/policy/auth/api-keys.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool, type ToolContext } from '../../src/server/tool.js';
import { startHttp } from '../helpers/http.js';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../helpers/oidc.js';
import { WITH_TASKS } from '../helpers/tasks.js';
import { tempDir } from '../helpers/temp.js';
import { memoryLogger } from '../helpers/wire.js';

// One structured caller from the HTTP authorization to the handler, the audit trail and
// every per-caller store: API keys (with tenants) and JWTs from a real local authorization server.
const KEYS = {
  aliceAcme: 'twk_alice-of-acme-0123456789abcdefghijk',
  aliceGlobex: 'twk_alice-of-globex-0123456789abcdefghi',
  bob: 'twk_bob-of-acme-0123456789abcdefghijklmno',
};
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

let as: LocalAuthorizationServer;
let http: Awaited<ReturnType<typeof startHttp>> | undefined;
let server: ToolServer | undefined;
beforeAll(async () => {
  as = await startAuthorizationServer();
});
afterAll(() => as?.close());
afterEach(async () => {
  await http?.close();
  server?.taskStore?.close();
  server?.audit?.close?.();
  http = undefined;
  server = undefined;
  as.extraClaims = undefined;
});

async function serve(options: { tenantClaim?: string; perCaller?: number } = {}) {
  const dir = tempDir('tw-caller-');
  const audit = new SqliteAuditSink(join(dir, 'audit.db'));
  server = new ToolServer({
    logger: memoryLogger().logger,
    audit,
    limits: {
      maxResultBytes: 1_000,
      rateLimit: options.perCaller ? { perPrincipal: { points: options.perCaller, durationSeconds: 600 }, perTool: false } : false,
    },
    tasks: { store: join(dir, 'tasks.db'), pollIntervalMs: 20 },
    tools: [
      defineTool({
        name: 'whoami',
        description: 'd',
        inputSchema: { type: 'object' },
        handler: (_args, ctx: ToolContext) => ({ structuredContent: { caller: ctx.caller, principal: ctx.principal ?? null }, content: [] }),
      }),
      defineTool({ name: 'big', description: 'd', inputSchema: { type: 'object' }, handler: () => 'x'.repeat(5_000) }),
      defineTool({ name: 'job', description: 'd', inputSchema: { type: 'object' }, task: 'always', handler: () => 'done' }),
    ],
  });
  http = await startHttp(server, {
    auth: {
      issuer: as.issuer,
      ...(options.tenantClaim ? { tenantClaim: options.tenantClaim } : {}),
      apiKeys: [
        { hash: hashApiKey(KEYS.aliceAcme), principal: 'alice', tenant: 'acme', scopes: ['tools:read'] },
        { hash: hashApiKey(KEYS.aliceGlobex), principal: 'alice', tenant: 'globex' },
        { hash: hashApiKey(KEYS.bob), principal: 'bob', tenant: 'acme' },
      ],
    },
  });
  return { http, audit: () => queryAuditLog(join(dir, 'audit.db'), { limit: false }) };
}

const jwtFor = async (scope: string) => ({ authorization: `Bearer ${(await as.token({ resource: http!.url, scope })).access_token}` });
const call = async (name: string, headers: Record<string, string>, meta: Record<string, unknown> = {}) =>
  (await http!.modern('tools/call', { name, arguments: {} }, headers, meta)).json();

describe('the caller a handler sees (ctx.caller)', () => {
  it('is the verified JWT caller: id, subject, client id, scopes, claims and method', async () => {
    await serve();
    const { result } = await call('whoami', await jwtFor('tools:read reports'));
    const { caller, principal } = result.structuredContent;
    expect(caller).toMatchObject({ id: 'agent', subject: 'agent', clientId: 'agent', scopes: ['tools:read', 'reports'], method: 'jwt' });
    expect(caller.claims.iss).toBe(as.issuer);
    expect(caller.tenant).toBeUndefined();
    expect(principal).toBe('agent');
  });

  it('is the API key caller with its tenant', async () => {
    await serve();
    const { result } = await call('whoami', bearer(KEYS.aliceAcme));
    expect(result.structuredContent.caller).toEqual({ id: 'alice', subject: 'alice', scopes: ['tools:read'], claims: {}, tenant: 'acme', method: 'api-key' });
  });

  it('takes the tenant from the claim server.auth.tenantClaim names, and refuses a token without it', async () => {
    await serve({ tenantClaim: 'org' });
    as.extraClaims = { org: 'acme' };
    const { result } = await call('whoami', await jwtFor('tools:read'));
    expect(result.structuredContent.caller).toMatchObject({ id: 'agent', tenant: 'acme', method: 'jwt' });
    as.extraClaims = undefined;
    const refused = await http!.modern('tools/call', { name: 'whoami', arguments: {} }, await jwtFor('tools:read'));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });
});

describe('a custom authenticate hook', () => {
  it('may name the tenant, and cannot pass its caller off as the anonymous one', async () => {
    server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [
        defineTool({
          name: 'whoami',
          description: 'd',
          inputSchema: { type: 'object' },
          handler: (_args, ctx: ToolContext) => ({ structuredContent: { caller: ctx.caller }, content: [] }),
        }),
      ],
    });
    http = await startHttp(server, {
      authenticate: (req) => ({ id: String(req.headers['x-user']), tenant: 'acme', method: 'anonymous' as const, scopes: 'a b' }),
    });
    const { result } = await call('whoami', { 'x-user': 'erin' });
    expect(result.structuredContent.caller).toEqual({ id: 'erin', scopes: ['a', 'b'], claims: {}, tenant: 'acme', method: 'custom' });
  });
});

describe('the audit record of an authenticated call', () => {
  it('keeps the caller id, its client id and scopes (and tenant), in the SQLite trail', async () => {
    const { audit } = await serve();
    await call('whoami', await jwtFor('tools:read'));
    await call('whoami', bearer(KEYS.aliceAcme));
    const big = await call('big', await jwtFor('tools:read'));
    const link = big.result.content.find((block: { type: string }) => block.type === 'resource_link');
    await http!.modern('resources/read', { uri: link.uri }, await jwtFor('tools:read'));
    const records = audit();
    // A request that is not a tool call keeps the same caller fields.
    expect(records.pop()).toMatchObject({ method: 'resources/read', principal: 'agent', clientId: 'agent', scopes: ['tools:read'] });
    records.pop();
    expect(records.map(({ principal, clientId, scopes, tenant }) => ({ principal, clientId, scopes, tenant }))).toEqual([
      { principal: 'agent', clientId: 'agent', scopes: ['tools:read'], tenant: undefined },
      { principal: 'alice', clientId: undefined, scopes: ['tools:read'], tenant: 'acme' },
    ]);
  });
});

describe('per-caller state, keyed by the caller (and its tenant)', () => {
  it('gives each caller its own rate limit, and the same id in two tenants two limits', async () => {
    await serve({ perCaller: 2 });
    const limited = async (headers: Record<string, string>) => (await call('whoami', headers)).result.isError === true;
    expect([await limited(bearer(KEYS.aliceAcme)), await limited(bearer(KEYS.aliceAcme)), await limited(bearer(KEYS.aliceAcme))]).toEqual([false, false, true]);
    expect(await limited(bearer(KEYS.bob))).toBe(false);
    expect(await limited(bearer(KEYS.aliceGlobex))).toBe(false);
    const jwt = await jwtFor('tools:read');
    expect([await limited(jwt), await limited(jwt), await limited(jwt)]).toEqual([false, false, true]);
  });

  it('lets only the caller that made a stored result read it back: not another caller, not the same id in another tenant', async () => {
    await serve();
    const { result } = await call('big', bearer(KEYS.aliceAcme));
    const link = result.content.find((block: { type: string }) => block.type === 'resource_link');
    expect(link?.uri).toMatch(/^toolwright:\/\/results\//);
    const read = async (headers: Record<string, string>) => (await http!.modern('resources/read', { uri: link.uri }, headers)).json();
    expect((await read(bearer(KEYS.aliceAcme))).result.contents[0].text).toBe('x'.repeat(5_000));
    for (const other of [bearer(KEYS.aliceGlobex), bearer(KEYS.bob), await jwtFor('tools:read')]) {
      const answer = await read(other);
      expect(answer.result).toBeUndefined();
      expect(answer.error.code).toBe(-32602);
    }
  });

  it("makes a task its caller's: another caller, or the same id in another tenant, gets the unknown-task error", async () => {
    await serve();
    const created = await call('job', bearer(KEYS.aliceAcme), WITH_TASKS);
    const { taskId } = created.result;
    expect(typeof taskId).toBe('string');
    const get = async (headers: Record<string, string>) => (await http!.modern('tasks/get', { taskId }, { ...headers, 'mcp-name': taskId }, WITH_TASKS)).json();
    expect((await get(bearer(KEYS.aliceAcme))).result.taskId).toBe(taskId);
    for (const other of [bearer(KEYS.aliceGlobex), bearer(KEYS.bob)]) {
      const answer = await get(other);
      expect(answer.result).toBeUndefined();
      expect(answer.error.code).toBe(-32602);
    }
  });
});
