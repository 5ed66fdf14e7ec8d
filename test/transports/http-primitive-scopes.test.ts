import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/policy/auth/api-keys.js';
import type { ScopePolicyOptions } from '../../src/policy/auth/scope-policy.js';
import { definePrompt } from '../../src/server/primitives/prompts/index.js';
import { defineResource, defineResourceTemplate } from '../../src/server/primitives/resources/index.js';
import { ToolServer } from '../../src/server/server.js';
import { readSse, startHttp } from '../helpers/http.js';
import { memoryLogger } from '../helpers/wire.js';

/**
 * Scopes for resources, templates and prompts, over real HTTP with API keys
 * (bearer tokens whose scopes the server verifies): lists filtered per
 * caller, a hidden item answers exactly as a missing one, a visible one
 * without its scopes is 403 insufficient_scope naming all it needs.
 */
let http: Awaited<ReturnType<typeof startHttp>> | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

const KEYS: Record<string, string[]> = {
  nobody: [],
  docs: ['docs:read'],
  wiki: ['wiki'],
  admin: ['admin', 'docs:read', 'wiki', 'prompts:use'],
  prompter: ['prompts:use'],
};
const keyOf = (who: string) => `${who}-key-`.padEnd(40, 'x');
const bearer = (who: string) => ({ authorization: `Bearer ${keyOf(who)}` });

let ran: string[] = [];
function makeServer(scopes: ScopePolicyOptions = {}) {
  ran = [];
  const read = (what: string) => () => {
    ran.push(what);
    return `${what} text`;
  };
  return new ToolServer({
    logger: memoryLogger().logger,
    audit: false,
    scopes,
    resources: [
      defineResource({ uri: 'docs://open', name: 'open', read: read('open') }),
      defineResource({ uri: 'docs://guide', name: 'guide', scopes: ['docs:read'], read: read('guide') }),
      defineResource({ uri: 'docs://secret', name: 'secret', scopes: ['admin'], visibilityScopes: ['admin'], read: read('secret') }),
    ],
    resourceTemplates: [
      defineResourceTemplate({
        uriTemplate: 'wiki://{page}',
        name: 'wiki',
        scopes: ['wiki'],
        complete: { page: () => ['home', 'help'] },
        read: (uri) => read(uri)(),
      }),
      defineResourceTemplate({
        uriTemplate: 'vault://{item}',
        name: 'vault',
        visibilityScopes: ['admin'],
        complete: { item: () => ['gold'] },
        read: (uri) => read(uri)(),
      }),
    ],
    prompts: [
      definePrompt({ name: 'greet', arguments: [{ name: 'who' }], get: () => (ran.push('greet'), 'hello') }),
      definePrompt({
        name: 'review',
        scopes: ['prompts:use'],
        arguments: [{ name: 'lang' }],
        complete: { lang: () => ['ts', 'go'] },
        get: () => (ran.push('review'), 'review it'),
      }),
      definePrompt({
        name: 'root',
        scopes: ['admin'],
        visibilityScopes: ['admin'],
        arguments: [{ name: 'x' }],
        complete: { x: () => ['y'] },
        get: () => (ran.push('root'), 'root'),
      }),
    ],
  });
}

async function serve(server = makeServer()) {
  const apiKeys = Object.entries(KEYS).map(([who, scopes]) => ({ hash: hashApiKey(keyOf(who)), principal: who, scopes }));
  http = await startHttp(server, { auth: { apiKeys } });
  return http;
}

const call = async (method: string, params: Record<string, unknown>, who: string) => {
  const res = await http!.modern(method, params, bearer(who));
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.json() };
};

describe('lists per caller', () => {
  it('shows each caller only the resources, templates and prompts it may use, as private lists', async () => {
    await serve();
    const uris = async (who: string) => (await call('resources/list', {}, who)).body.result.resources.map((r: { uri: string }) => r.uri);
    expect(await uris('nobody')).toEqual(['docs://open']);
    expect(await uris('docs')).toEqual(['docs://open', 'docs://guide']);
    expect(await uris('admin')).toEqual(['docs://open', 'docs://guide', 'docs://secret']);
    const listed = await call('resources/list', {}, 'docs');
    expect(listed.body.result.cacheScope).toBe('private');
    const templates = async (who: string) =>
      (await call('resources/templates/list', {}, who)).body.result.resourceTemplates.map((t: { name: string }) => t.name);
    expect(await templates('nobody')).toEqual([]);
    expect(await templates('wiki')).toEqual(['wiki']);
    expect(await templates('admin')).toEqual(['wiki', 'vault']);
    const prompts = async (who: string) => (await call('prompts/list', {}, who)).body.result.prompts.map((p: { name: string }) => p.name);
    expect(await prompts('nobody')).toEqual(['greet']);
    expect(await prompts('prompter')).toEqual(['greet', 'review']);
    expect(await prompts('admin')).toEqual(['greet', 'review', 'root']);
    expect((await call('prompts/list', {}, 'nobody')).body.result.cacheScope).toBe('private');
  });

  it('filters the legacy era lists too', async () => {
    await serve();
    const init = await http!.post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      bearer('docs'),
    );
    const headers = { ...bearer('docs'), 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    const res = await http!.post({ jsonrpc: '2.0', id: 2, method: 'resources/list' }, headers);
    expect((await res.json()).result.resources.map((r: { uri: string }) => r.uri)).toEqual(['docs://open', 'docs://guide']);
    const prompts = await http!.post({ jsonrpc: '2.0', id: 3, method: 'prompts/list' }, headers);
    expect((await prompts.json()).result.prompts.map((p: { name: string }) => p.name)).toEqual(['greet']);
  });
});

describe('resources/read', () => {
  it('reads what the caller has the scopes for', async () => {
    await serve();
    expect((await call('resources/read', { uri: 'docs://guide' }, 'docs')).body.result.contents[0].text).toBe('guide text');
    expect((await call('resources/read', { uri: 'wiki://home' }, 'wiki')).body.result.contents[0].text).toBe('wiki://home text');
  });

  it('answers 403 insufficient_scope naming every scope it needs, and reads nothing', async () => {
    await serve();
    const guide = await call('resources/read', { uri: 'docs://guide' }, 'nobody');
    expect(guide.status).toBe(403);
    expect(guide.challenge).toMatch(/^Bearer error="insufficient_scope", .*scope="docs:read"/);
    expect(guide.body.error).toMatchObject({ code: -32600, data: { requiredScopes: ['docs:read'] } });
    const page = await call('resources/read', { uri: 'wiki://home' }, 'docs');
    expect(page.status).toBe(403);
    expect(page.challenge).toMatch(/scope="wiki"/);
    expect(ran).toEqual([]);
  });

  it('answers a resource or template the caller may not know of exactly as a URI nothing serves', async () => {
    await serve();
    for (const [hidden, missing] of [
      ['docs://secret', 'docs://secreu'],
      ['vault://gold', 'vaulu://gold'],
    ]) {
      const a = await call('resources/read', { uri: hidden }, 'docs');
      const b = await call('resources/read', { uri: missing }, 'docs');
      expect(a.status).toBe(b.status);
      expect(a.challenge).toBeNull();
      expect({ ...a.body.error, data: undefined }).toEqual({ ...b.body.error, data: undefined });
      expect(a.body.error.data).toEqual({ uri: hidden });
    }
    expect(ran).toEqual([]);
    expect((await call('resources/read', { uri: 'docs://secret' }, 'admin')).body.result.contents[0].text).toBe('secret text');
  });

  it('answers 403 in the legacy era as well', async () => {
    await serve();
    const init = await http!.post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      bearer('nobody'),
    );
    const headers = { ...bearer('nobody'), 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    const res = await http!.post({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'docs://guide' } }, headers);
    expect(res.status).toBe(403);
    expect(ran).toEqual([]);
  });
});

describe('prompts/get and completion', () => {
  it('gets a prompt with its scopes; 403 naming them without; a hidden one is an unknown prompt', async () => {
    await serve();
    expect((await call('prompts/get', { name: 'review', arguments: { lang: 'ts' } }, 'prompter')).body.result.messages[0].content.text).toBe('review it');
    const denied = await call('prompts/get', { name: 'review', arguments: { lang: 'ts' } }, 'docs');
    expect(denied.status).toBe(403);
    expect(denied.challenge).toMatch(/scope="prompts:use"/);
    const hidden = await call('prompts/get', { name: 'root', arguments: {} }, 'prompter');
    const missing = await call('prompts/get', { name: 'roou', arguments: {} }, 'prompter');
    expect(hidden.status).toBe(missing.status);
    expect(hidden.body.error.message.replace('root', 'N')).toBe(missing.body.error.message.replace('roou', 'N'));
    expect(ran).toEqual(['review']);
  });

  it('completes only what the caller may use: hidden is unknown, lacking scopes is 403', async () => {
    await serve();
    const complete = (ref: Record<string, unknown>, name: string, who: string) => call('completion/complete', { ref, argument: { name, value: '' } }, who);
    expect((await complete({ type: 'ref/prompt', name: 'review' }, 'lang', 'prompter')).body.result.completion.values).toEqual(['ts', 'go']);
    expect((await complete({ type: 'ref/prompt', name: 'review' }, 'lang', 'docs')).status).toBe(403);
    const hidden = await complete({ type: 'ref/prompt', name: 'root' }, 'x', 'docs');
    const missing = await complete({ type: 'ref/prompt', name: 'roou' }, 'x', 'docs');
    expect(hidden.body.error.message.replace('root', 'N')).toBe(missing.body.error.message.replace('roou', 'N'));
    expect((await complete({ type: 'ref/resource', uri: 'wiki://{page}' }, 'page', 'docs')).status).toBe(403);
    const vault = await complete({ type: 'ref/resource', uri: 'vault://{item}' }, 'item', 'docs');
    const nothing = await complete({ type: 'ref/resource', uri: 'vaulu://{item}' }, 'item', 'docs');
    expect(vault.body.error.message.replace('vault', 'N')).toBe(nothing.body.error.message.replace('vaulu', 'N'));
    const secret = await complete({ type: 'ref/resource', uri: 'docs://secret' }, 'x', 'docs');
    expect(secret.body.error.code).toBe(-32602);
    expect((await complete({ type: 'ref/resource', uri: 'vault://{item}' }, 'item', 'admin')).body.result.completion.values).toEqual(['gold']);
  });
});

describe('operator configuration', () => {
  it('resourceScopes (by URI and by template), promptScopes, visibility and defaults win over the definitions', async () => {
    await serve(
      makeServer({
        resourceScopes: { 'docs://guide': ['wiki'], 'wiki://{page}': ['docs:read'] },
        resourceVisibility: { 'docs://open': ['admin'] },
        promptScopes: { review: ['docs:read'] },
        promptVisibility: { greet: ['wiki'] },
        defaultScopes: { resources: ['docs:read'], prompts: ['prompts:use'] },
      }),
    );
    expect((await call('resources/read', { uri: 'docs://guide' }, 'wiki')).status).toBe(200);
    expect((await call('resources/read', { uri: 'docs://guide' }, 'docs')).challenge).toMatch(/scope="wiki"/);
    expect((await call('resources/read', { uri: 'wiki://home' }, 'docs')).status).toBe(200);
    expect((await call('resources/read', { uri: 'docs://open' }, 'docs')).body.error.message).toBe('Resource not found');
    // The vault template names no call scopes: the resources default applies.
    expect((await call('resources/read', { uri: 'vault://gold' }, 'admin')).status).toBe(200);
    expect((await call('prompts/get', { name: 'review', arguments: {} }, 'docs')).status).toBe(200);
    expect((await call('prompts/get', { name: 'greet', arguments: {} }, 'docs')).body.error.message).toBe('Unknown prompt: greet');
    const greet = await call('prompts/get', { name: 'greet', arguments: {} }, 'wiki');
    expect(greet.status).toBe(403);
    expect(greet.challenge).toMatch(/scope="wiki prompts:use"/);
  });

  it('refuses a definition whose scopes are not scope strings', () => {
    expect(() => new ToolServer({ audit: false, resources: [defineResource({ uri: 'a://b', name: 'b', scopes: ['has space'], read: () => '' })] })).toThrow(
      /scopes holds "has space"/,
    );
    expect(() => new ToolServer({ audit: false, prompts: [definePrompt({ name: 'p', visibilityScopes: ['"'], get: () => '' })] })).toThrow(
      /visibilityScopes holds/,
    );
  });
});

describe('stored results and subscriptions', () => {
  it('does not let a caller subscribe to updates of a resource it may not read (legacy resources/subscribe)', async () => {
    const server = makeServer();
    await serve(server);
    const init = await http!.post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      bearer('nobody'),
    );
    const session = init.headers.get('mcp-session-id')!;
    const headers = { ...bearer('nobody'), 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await http!.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    for (const [id, uri] of [
      [2, 'docs://secret'],
      [3, 'docs://guide'],
      [4, 'docs://open'],
    ] as const) {
      const res = await http!.post({ jsonrpc: '2.0', id, method: 'resources/subscribe', params: { uri } }, headers);
      expect((await res.json()).result).toEqual({});
    }
    const stream = await fetch(http!.url, { headers: { accept: 'text/event-stream', ...headers } });
    const reader = stream.body!.getReader();
    setTimeout(() => {
      server.resources.updated('docs://secret');
      server.resources.updated('docs://guide');
      setTimeout(() => server.resources.updated('docs://open'), 30);
    }, 30);
    let text = '';
    while (!text.includes('docs://open')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).not.toContain('docs://secret');
    expect(text).not.toContain('docs://guide');
  });

  it('sends a subscriptions/listen stream updates only of resources its caller may read, and acknowledges every URI alike', async () => {
    const server = makeServer();
    await serve(server);
    const uris = ['docs://secret', 'docs://guide', 'docs://open'];
    const res = await http!.modern('subscriptions/listen', { notifications: { resourceSubscriptions: uris } }, bearer('nobody'));
    setTimeout(() => {
      server.resources.updated('docs://secret');
      server.resources.updated('docs://guide');
      setTimeout(() => server.resources.updated('docs://open'), 30);
    }, 30);
    const messages = await readSse(res, (m) => m.some((x) => x.params?.uri === 'docs://open'));
    expect(messages[0].params.notifications.resourceSubscriptions).toEqual(uris);
    expect(messages.filter((m) => m.method === 'notifications/resources/updated').map((m) => m.params.uri)).toEqual(['docs://open']);
  });
});
