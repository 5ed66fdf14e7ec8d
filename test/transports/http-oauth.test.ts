import { createHmac, createPublicKey } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceServerOptions } from '../../src/policy/auth/options.js';
import { generateApiKey } from '../../src/policy/auth/api-keys.js';
import { ToolServer } from '../../src/server/server.js';
import { httpFace } from '../helpers/fetch-face.js';
import { readSse, startHttp } from '../helpers/http.js';
import { RESOURCE_SERVER, startAuthorizationServer, type LocalAuthorizationServer } from '../helpers/oidc.js';
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

const logs = memoryLogger();

function makeServer() {
  return new ToolServer({
    logger: logs.logger,
    audit: false,
    tools: [
      {
        name: 'whoami',
        description: 'Names the caller.',
        inputSchema: { type: 'object' },
        handler: (_a, ctx) => JSON.stringify({ principal: ctx.principal, clientId: ctx.auth?.clientId, scopes: ctx.auth?.scopes, method: ctx.auth?.method }),
      },
      {
        name: 'slow_report',
        description: 'Reports progress, then answers.',
        inputSchema: { type: 'object' },
        handler: async (_a, ctx) => {
          ctx.progress(1, 2);
          await new Promise((r) => setTimeout(r, 10));
          return `done for ${ctx.principal}`;
        },
      },
    ],
  });
}

async function serve(auth: Partial<ResourceServerOptions> = {}) {
  http = await startHttp(makeServer(), { auth: { issuer: as.issuer, scopesSupported: ['tools:read'], ...auth } });
  return http;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('protected resource metadata (RFC 9728)', () => {
  it('is served at the path-suffixed and the root well-known URI', async () => {
    const { url } = await serve({ resourceMetadata: { resource_name: 'Test tools' } });
    const origin = new URL(url).origin;
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(origin + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual({
        resource: url,
        authorization_servers: [as.issuer],
        scopes_supported: ['tools:read'],
        bearer_methods_supported: ['header'],
        resource_name: 'Test tools',
      });
    }
    expect((await fetch(`${origin}/.well-known/oauth-protected-resource/other`)).status).toBe(404);
  });

  it('names a configured canonical resource URI', async () => {
    await serve({ resource: 'https://mcp.example.com/mcp' });
    const origin = new URL(http!.url).origin;
    expect((await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()).resource).toBe('https://mcp.example.com/mcp');
  });
});

describe('challenges', () => {
  it('answers a request without a token with 401, resource_metadata and the scopes to ask for', async () => {
    const { url, modern } = await serve();
    const res = await modern('tools/list');
    expect(res.status).toBe(401);
    const metadata = `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`;
    expect(res.headers.get('www-authenticate')).toBe(`Bearer scope="tools:read", resource_metadata="${metadata}"`);
    expect((await res.json()).error.code).toBe(-32600);
  });

  it('answers an invalid token with 401 error="invalid_token"', async () => {
    const { modern } = await serve();
    const res = await modern('tools/list', {}, bearer('not-a-token-at-all'));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
  });

  it('answers an expired token with 401 invalid_token', async () => {
    as.tokenTtlSeconds = 1;
    try {
      const { modern, url } = await serve({ clockToleranceSeconds: 0 });
      const { access_token } = await as.token({ resource: url });
      await new Promise((r) => setTimeout(r, 1_100));
      const res = await modern('tools/list', {}, bearer(access_token));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="the access token expired"/);
    } finally {
      as.tokenTtlSeconds = 300;
    }
  });

  it('answers a token for another resource with 401 invalid_token, and runs nothing', async () => {
    const { modern } = await serve();
    const { access_token } = await as.token({ resource: 'https://other.example/mcp' });
    const res = await modern('tools/call', { name: 'whoami', arguments: {} }, bearer(access_token));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/another resource/);
  });

  it('refuses a token in the query string with 400 invalid_request, even a valid one', async () => {
    const { url } = await serve();
    const { access_token } = await as.token({ resource: url });
    const res = await fetch(`${url}?access_token=${access_token}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_request"/);
  });

  it('refuses a malformed Authorization header with 400', async () => {
    const { modern } = await serve();
    const res = await modern('tools/list', {}, { authorization: 'Bearer a b c' });
    expect(res.status).toBe(400);
  });

  it('answers 503 with Retry-After when the authorization server cannot be reached, and logs why', async () => {
    const { modern, url } = await serve({ issuer: 'http://127.0.0.1:9', jwksUri: 'http://127.0.0.1:9/jwks' });
    const { access_token } = await as.token({ resource: url });
    const res = await modern('tools/list', {}, bearer(access_token));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(logs.records.some((r) => r.level === 'warn' && /could not verify/.test(r.msg))).toBe(true);
    expect(JSON.stringify(logs.records)).not.toContain(access_token);
  });
});

describe('a valid token', () => {
  it('reaches the tool as ctx.principal and ctx.auth (modern era, JSON answer)', async () => {
    const { modern, url } = await serve();
    const { access_token } = await as.token({ resource: url, scope: 'tools:read' });
    const res = await modern('tools/call', { name: 'whoami', arguments: {} }, bearer(access_token));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(JSON.parse((await res.json()).result.content[0].text)).toEqual({ principal: 'agent', clientId: 'agent', scopes: ['tools:read'], method: 'jwt' });
  });

  it('works for an SSE answer (a call that reports progress)', async () => {
    const { modern, url } = await serve();
    const { access_token } = await as.token({ resource: url });
    const res = await modern('tools/call', { name: 'slow_report', arguments: {} }, bearer(access_token), { progressToken: 'p1' });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const messages = await readSse(res, (m) => m.some((x) => 'result' in x));
    expect(messages[0].method).toBe('notifications/progress');
    expect(messages.at(-1)!.result.content[0].text).toBe('done for agent');
  });

  it('opens and uses a legacy session (2025-11-25), which stays bound to its principal', async () => {
    const { post, url } = await serve();
    const { access_token } = await as.token({ resource: url });
    const init = await post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      bearer(access_token),
    );
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id')!;
    const headers = { ...bearer(access_token), 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, headers);
    expect(JSON.parse((await call.json()).result.content[0].text).principal).toBe('agent');
    const noToken = await post({ jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(noToken.status).toBe(401);
  });
});

describe('API keys', () => {
  it('authorize a caller as its configured principal; no metadata is served without an authorization server', async () => {
    const { key, hash } = generateApiKey();
    http = await startHttp(makeServer(), { auth: { apiKeys: [{ hash, principal: 'ci-bot', scopes: ['tools:read'] }] } });
    const res = await http.modern('tools/call', { name: 'whoami', arguments: {} }, bearer(key));
    expect(JSON.parse((await res.json()).result.content[0].text)).toMatchObject({ principal: 'ci-bot', method: 'api-key' });
    const wrong = await http.modern('tools/list', {}, bearer(`${key}x`));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect((await fetch(`${new URL(http.url).origin}/.well-known/oauth-protected-resource`)).status).toBe(404);
  });
});

describe('configuration', () => {
  it('refuses an authenticate hook together with auth options', async () => {
    await expect(startHttp(makeServer(), { auth: { issuer: as.issuer }, authenticate: () => 'x' })).rejects.toThrow(/either/);
  });

  // serveHttp's own check (it binds the address); the fetch face binds nothing: its host does.
  it.skipIf(httpFace() === 'fetch')('needs auth.resource to bind every interface with OAuth', async () => {
    await expect(startHttp(makeServer(), { host: '0.0.0.0', auth: { issuer: as.issuer } })).rejects.toThrow(/auth\.resource/);
  });
});

describe('every refusal over HTTP (real tokens from the local authorization server)', () => {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const status = async (token: string) => {
    const res = await http!.modern('tools/call', { name: 'whoami', arguments: {} }, bearer(token));
    return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '' };
  };

  it('refuses alg none, HS256 signed with the public key, a tampered payload, nbf in the future and another issuer', async () => {
    const { url } = await serve({ jwksCooldownSeconds: 0 });
    const { access_token } = await as.token({ resource: url, scope: 'tools:read' });
    const [, payload, signature] = access_token.split('.');
    const jwk = as.publicJwks().at(-1)!;
    const pem = createPublicKey({ key: jwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
    const hsHeader = b64({ alg: 'HS256', typ: 'at+jwt', kid: jwk.kid });
    const forged = {
      none: `${b64({ ...decodeProtectedHeader(access_token), alg: 'none' })}.${payload}.`,
      hs256: `${hsHeader}.${payload}.${createHmac('sha256', pem).update(`${hsHeader}.${payload}`).digest('base64url')}`,
      tampered: `${access_token.split('.')[0]}.${b64({ ...decodeJwt(access_token), scope: 'admin' })}.${signature}`,
    };
    for (const token of Object.values(forged))
      expect(await status(token)).toMatchObject({ status: 401, challenge: expect.stringMatching(/^Bearer error="invalid_token"/) });
    as.extraClaims = { nbf: Math.floor(Date.now() / 1000) + 3600 };
    try {
      const early = await as.token({ resource: url });
      expect(await status(early.access_token)).toMatchObject({ status: 401, challenge: expect.stringContaining('not yet valid') });
    } finally {
      as.extraClaims = undefined;
    }
    expect(await status(access_token)).toMatchObject({ status: 200 });
    await http!.close();
    http = await startHttp(makeServer(), { auth: { issuer: `${as.issuer}/elsewhere`, jwksUri: `${as.issuer}/jwks` } });
    const other = await as.token({ resource: http.url });
    expect(await status(other.access_token)).toMatchObject({ status: 401, challenge: expect.stringContaining('another authorization server') });
  });

  it('accepts a token signed with a rotated key after refetching the key set', async () => {
    const { url } = await serve({ jwksCooldownSeconds: 0 });
    const before = await as.token({ resource: url });
    expect((await status(before.access_token)).status).toBe(200);
    await as.rotateKeys();
    const after = await as.token({ resource: url });
    expect(decodeProtectedHeader(after.access_token).kid).not.toBe(decodeProtectedHeader(before.access_token).kid);
    expect((await status(after.access_token)).status).toBe(200);
  });

  it('serves an opaque token through introspection until it is revoked', async () => {
    http = await startHttp(makeServer(), {
      auth: { issuer: as.issuer, introspection: { clientId: RESOURCE_SERVER.id, clientSecret: RESOURCE_SERVER.secret, cacheTtlSeconds: 0 } },
    });
    as.opaqueResources.add(http.url);
    const { access_token } = await as.token({ resource: http.url, scope: 'tools:read' });
    expect(access_token).not.toContain('.');
    const ok = await http.modern('tools/call', { name: 'whoami', arguments: {} }, bearer(access_token));
    expect(JSON.parse((await ok.json()).result.content[0].text)).toMatchObject({ principal: 'client:agent', method: 'introspection' });
    await as.revoke(access_token);
    expect(await status(access_token)).toMatchObject({ status: 401, challenge: expect.stringContaining('not active') });
  });
});
