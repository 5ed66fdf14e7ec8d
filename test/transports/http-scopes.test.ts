import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonlAuditSink } from '../../src/audit/jsonl-sink.js';
import type { ScopePolicyOptions } from '../../src/policy/auth/scope-policy.js';
import { ToolServer } from '../../src/server/server.js';
import type { Tool } from '../../src/server/tool.js';
import { readSse, startHttp } from '../helpers/http.js';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../helpers/oidc.js';
import { tempDir } from '../helpers/temp.js';
import { memoryLogger } from '../helpers/wire.js';

let as: LocalAuthorizationServer;
let http: Awaited<ReturnType<typeof startHttp>> | undefined;
beforeAll(async () => {
  as = await startAuthorizationServer();
});
afterAll(() => as?.close());
afterEach(async () => {
  await http?.close();
  http = undefined;
});

const POLICY: ScopePolicyOptions = {
  defaultScopes: { readOnly: ['tools:read'], other: ['tools:write'] },
  toolScopes: { monthly_report: ['reports', 'tools:read'] },
  scopeHierarchy: { 'tools:write': ['tools:read'] },
};

let runs: string[] = [];
const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  handler: () => {
    runs.push(name);
    return `${name} ran`;
  },
  ...extra,
});

function makeServer(audit: JsonlAuditSink | false = false) {
  runs = [];
  return new ToolServer({
    logger: memoryLogger().logger,
    audit,
    scopes: POLICY,
    tools: [
      tool('read_notes', { annotations: { readOnlyHint: true } }),
      tool('write_note'),
      tool('monthly_report', { annotations: { readOnlyHint: true } }),
      tool('admin_reset', { scopes: ['admin'], visibilityScopes: ['admin'] }),
    ],
  });
}

async function serve(server = makeServer()) {
  http = await startHttp(server, { auth: { issuer: as.issuer } });
  return { http, server };
}

const tokenFor = async (scope: string) => `Bearer ${(await as.token({ resource: http!.url, scope })).access_token}`;
const names = (result: { tools: Array<{ name: string }> }) => result.tools.map((t) => t.name);

describe('tools/list per caller', () => {
  it('shows a caller only the tools its scopes allow it to call, as a private list', async () => {
    const { http } = await serve();
    const res = await http.modern('tools/list', {}, { authorization: await tokenFor('tools:read') });
    const { result } = await res.json();
    expect(names(result)).toEqual(['read_notes']);
    expect(result.cacheScope).toBe('private');
  });

  it('honours scope hierarchies (tools:write implies tools:read)', async () => {
    const { http } = await serve();
    const { result } = await (await http.modern('tools/list', {}, { authorization: await tokenFor('tools:write') })).json();
    expect(names(result)).toEqual(['read_notes', 'write_note']);
  });

  it('filters the legacy era list too', async () => {
    const { http } = await serve();
    const authorization = await tokenFor('tools:read reports');
    const init = await http.post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { authorization },
    );
    const session = init.headers.get('mcp-session-id')!;
    const res = await http.post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { authorization, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    );
    expect(names((await res.json()).result)).toEqual(['read_notes', 'monthly_report']);
  });
});

describe('calls', () => {
  it('runs a tool the token has the scopes for', async () => {
    const { http } = await serve();
    const res = await http.modern('tools/call', { name: 'read_notes', arguments: {} }, { authorization: await tokenFor('tools:read') });
    expect(res.status).toBe(200);
    expect((await res.json()).result.content[0].text).toBe('read_notes ran');
  });

  it('answers 403 insufficient_scope naming every scope the call needs, in one challenge, and runs nothing', async () => {
    const { http } = await serve();
    const res = await http.modern('tools/call', { name: 'monthly_report', arguments: {} }, { authorization: await tokenFor('tools:write') });
    expect(res.status).toBe(403);
    const metadata = `${new URL(http.url).origin}/.well-known/oauth-protected-resource/mcp`;
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", error_description="the access token lacks scopes this call needs", scope="reports tools:read", resource_metadata="${metadata}"`,
    );
    expect((await res.json()).error).toMatchObject({ code: -32600, data: { requiredScopes: ['reports', 'tools:read'] } });
    expect(runs).toEqual([]);
  });

  it('answers 403 in the legacy era as well', async () => {
    const { http } = await serve();
    const authorization = await tokenFor('tools:read');
    const init = await http.post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { authorization },
    );
    const session = init.headers.get('mcp-session-id')!;
    const res = await http.post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_note', arguments: {} } },
      { authorization, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", .*scope="tools:write"/);
    expect(runs).toEqual([]);
  });

  it('answers a tool the caller may not know of exactly as a tool that does not exist', async () => {
    const { http } = await serve();
    const authorization = await tokenFor('tools:read tools:write reports');
    const hidden = await http.modern('tools/call', { name: 'admin_reset', arguments: {} }, { authorization });
    const missing = await http.modern('tools/call', { name: 'admin_resez', arguments: {} }, { authorization });
    expect(hidden.status).toBe(missing.status);
    expect(hidden.headers.get('www-authenticate')).toBeNull();
    const [a, b] = [(await hidden.json()).error, (await missing.json()).error];
    expect(a.code).toBe(-32602);
    expect({ ...a, message: a.message.replace('admin_reset', 'NAME') }).toEqual({ ...b, message: b.message.replace('admin_resez', 'NAME') });
    expect(runs).toEqual([]);
    const admin = await http.modern('tools/call', { name: 'admin_reset', arguments: {} }, { authorization: await tokenFor('admin') });
    expect((await admin.json()).result.content[0].text).toBe('admin_reset ran');
  });

  it('looks at nothing of a hidden tool before deciding: bad arguments or headers answer as for a missing tool', async () => {
    const server = makeServer();
    server.addTool(
      tool('admin_lookup', {
        scopes: ['admin'],
        visibilityScopes: ['admin'],
        inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
      }),
    );
    const { http } = await serve(server);
    const authorization = await tokenFor('tools:read');
    const ask = async (name: string, args: unknown, headers: Record<string, string> = {}) => {
      const res = await http.modern('tools/call', { name, arguments: args }, { authorization, ...headers });
      const { error } = await res.json();
      return { status: res.status, code: error.code, message: error.message.replace(name, 'NAME') };
    };
    for (const [args, headers] of [
      [5, {}],
      [{ region: 'eu' }, { 'mcp-param-region': 'us' }],
      [{ region: 'eu' }, {}],
    ] as const) {
      expect(await ask('admin_lookup', args, headers)).toEqual(await ask('admin_lookuq', args, headers));
    }
    const admin = await tokenFor('admin');
    const mismatch = await http.modern('tools/call', { name: 'admin_lookup', arguments: { region: 'eu' } }, { authorization: admin, 'mcp-param-region': 'us' });
    expect((await mismatch.json()).error.code).toBe(-32020);
  });

  it('leaves callers without scope information alone (a custom hook returning a plain principal)', async () => {
    http = await startHttp(makeServer(), { authenticate: () => 'local-user' });
    const res = await http.modern('tools/call', { name: 'admin_reset', arguments: {} });
    expect((await res.json()).result.content[0].text).toBe('admin_reset ran');
  });

  it('enforces scopes a custom hook returns', async () => {
    http = await startHttp(makeServer(), { authenticate: () => ({ id: 'svc', scopes: ['tools:read'] }) });
    expect((await http.modern('tools/call', { name: 'write_note', arguments: {} })).status).toBe(403);
  });
});

describe('live list changes', () => {
  it('tell a subscriber only about changes to the tools it can see', async () => {
    const { http, server } = await serve();
    const res = await http.modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, { authorization: await tokenFor('tools:read') });
    const seen: string[] = [];
    setTimeout(() => {
      server.tools.add(tool('admin_purge', { scopes: ['admin'] })); // invisible to tools:read
      setTimeout(() => {
        seen.push('visible change');
        server.tools.add(tool('read_more', { annotations: { readOnlyHint: true } }));
      }, 30);
    }, 20);
    const messages = await readSse(res, (m) => m.length >= 2);
    expect(seen).toEqual(['visible change']);
    expect(messages.map((m) => m.method)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
    const { result } = await (await http.modern('tools/list', {}, { authorization: await tokenFor('tools:read') })).json();
    expect(names(result)).toEqual(['read_notes', 'read_more']);
  });

  it('tell a legacy session only about changes it can see', async () => {
    const { http, server } = await serve();
    const authorization = await tokenFor('tools:read');
    const init = await http.post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { authorization },
    );
    const session = init.headers.get('mcp-session-id')!;
    const stream = await fetch(http.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session, authorization } });
    const seen: string[] = [];
    setTimeout(() => {
      server.tools.disable('write_note'); // not visible to tools:read
      setTimeout(() => {
        seen.push('visible change');
        server.tools.disable('read_notes');
      }, 30);
    }, 20);
    const messages = await readSse(stream, (m) => m.length >= 1);
    expect(seen).toEqual(['visible change']);
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
  });
});

describe('scopes from a custom hook', () => {
  it('take an OAuth-style space-separated string, and fail closed on anything else', async () => {
    http = await startHttp(makeServer(), { authenticate: () => ({ id: 'svc', scopes: 'tools:read tools:write' }) });
    expect((await http.modern('tools/call', { name: 'write_note', arguments: {} })).status).toBe(200);
    expect(runs).toEqual(['write_note']);
    await http.close();
    http = await startHttp(makeServer(), { authenticate: () => ({ id: 'svc', scopes: 42 as never }) });
    const broken = await http.modern('tools/call', { name: 'admin_reset', arguments: {} });
    expect(broken.status).toBe(500);
    expect(runs).toEqual([]);
  });
});

describe('the audit trail', () => {
  it('records a call refused for its scopes as refused, and a hidden tool as an unknown one', async () => {
    const file = join(tempDir('toolwright-scope-audit-'), 'audit.jsonl');
    const { http } = await serve(makeServer(new JsonlAuditSink(file)));
    const authorization = await tokenFor('tools:read');
    expect((await http.modern('tools/call', { name: 'write_note', arguments: {} }, { authorization })).status).toBe(403);
    await http.modern('tools/call', { name: 'admin_reset', arguments: {} }, { authorization });
    await http.modern('tools/call', { name: 'no_such_tool', arguments: {} }, { authorization });
    const records = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.map((r) => [r.tool, r.status, r.errorCode, r.principal])).toEqual([
      ['write_note', 'refused', -32600, 'agent'],
      ['admin_reset', 'protocol_error', -32602, 'agent'],
      ['no_such_tool', 'protocol_error', -32602, 'agent'],
    ]);
  });
});
