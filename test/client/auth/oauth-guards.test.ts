/**
 * What the OAuth client must never do, against scripted servers on 127.0.0.1:
 * send its bearer token anywhere but the server it was issued for (another
 * URL, a redirect), send a refresh token to another authorization server,
 * authorize without PKCE S256, ask for a token for a resource that is not the
 * server, or let a secret into an error message.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AuthorizationError, MemoryTokenStore, OAuthClient } from '../../../src/client.js';
import { json, type Exchange } from '../../helpers/scripted-http.js';
import { scriptedServersPerTest } from '../../helpers/scripted-servers.js';

const start = scriptedServersPerTest();

/** An authorization server for client_credentials (and, with `pkce`, the code flow) that counts what it is sent. */
async function authorizationServer(options: { pkce?: boolean; tokenError?: boolean } = {}) {
  const tokenForms: URLSearchParams[] = [];
  let n = 0;
  const as = await start((req, res, x) => {
    const issuer = as.url.replace(/\/mcp$/, '');
    if (req.url === '/.well-known/oauth-authorization-server') {
      return json(res, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        ...(options.pkce === false ? {} : { code_challenge_methods_supported: ['S256'] }),
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (req.url === '/token') {
      const form = new URLSearchParams(rawBody(x));
      tokenForms.push(form);
      if (options.tokenError)
        return void res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'invalid_client', error_description: 'bad secret' }));
      return json(res, { access_token: `token-${++n}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `refresh-${n}` });
    }
    res.writeHead(404).end();
  });
  return { as, issuer: () => as.url.replace(/\/mcp$/, ''), tokenForms };
}

function rawBody(x: Exchange): string {
  return x.raw;
}

/** A protected MCP endpoint: 401 without `token-*`, then `onAuthorized`. */
async function resourceServer(issuer: () => string, onAuthorized: (res: ServerResponse, x: Exchange) => void, resource?: () => string) {
  const rs = await start((req, res, x) => {
    if (req.url?.startsWith('/.well-known/oauth-protected-resource')) {
      return json(res, { resource: resource?.() ?? rs.url, authorization_servers: [issuer()] });
    }
    if (!String(req.headers.authorization ?? '').startsWith('Bearer token-')) {
      return void res
        .writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${rs.url.replace(/\/mcp$/, '')}/.well-known/oauth-protected-resource/mcp"` })
        .end();
    }
    onAuthorized(res, x);
  });
  return rs;
}

const CC = { grantType: 'client_credentials', clientId: 'svc', clientSecret: 'very-secret-value' } as const;

describe('where the bearer token goes', () => {
  it('only to the server it was issued for: not to another URL, not to the same origin at another path', async () => {
    const { issuer } = await authorizationServer();
    const rs = await resourceServer(issuer, (res) => json(res, { ok: true }));
    const other = await start((_req, res) => json(res, { ok: true }));
    const oauth = new OAuthClient(rs.url, CC);
    expect((await oauth.fetch(rs.url, { method: 'POST', body: '{}' })).status).toBe(200);
    await oauth.fetch(other.url, { method: 'POST', body: '{}' });
    await oauth.fetch(rs.url.replace(/\/mcp$/, '/elsewhere'), { method: 'POST', body: '{}' });
    expect(other.exchanges[0].headers.authorization).toBeUndefined();
    expect(rs.exchanges.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('not after a redirect (the redirect is handed back, not followed)', async () => {
    const { issuer } = await authorizationServer();
    const elsewhere = await start((_req, res) => json(res, { stolen: true }));
    const rs = await resourceServer(issuer, (res) => void res.writeHead(307, { location: elsewhere.url }).end());
    const oauth = new OAuthClient(rs.url, CC);
    const response = await oauth.fetch(rs.url, { method: 'POST', body: '{}' });
    expect(response.status).toBe(307);
    expect(elsewhere.exchanges).toHaveLength(0);
  });
});

describe('refusals before anything is sent', () => {
  it('refuses an authorization server that does not advertise PKCE S256, without asking the user', async () => {
    const { issuer } = await authorizationServer({ pkce: false });
    const rs = await resourceServer(issuer, (res) => json(res, { ok: true }));
    let asked = false;
    const oauth = new OAuthClient(rs.url, {
      redirectUri: 'http://127.0.0.1:9/callback',
      authorize: async () => ((asked = true), 'http://127.0.0.1:9/callback'),
    });
    const err = await oauth.fetch(rs.url, { method: 'POST', body: '{}' }).catch((e) => e);
    expect(err).toBeInstanceOf(AuthorizationError);
    expect(err.message).toMatch(/PKCE with S256/);
    expect(asked).toBe(false);
  });

  it('refuses metadata for another resource, without contacting the authorization server', async () => {
    const { as, issuer } = await authorizationServer();
    const rs = await resourceServer(
      issuer,
      (res) => json(res, { ok: true }),
      () => 'https://evil.example.com/mcp',
    );
    const err = await new OAuthClient(rs.url, CC).fetch(rs.url, { method: 'POST', body: '{}' }).catch((e) => e);
    expect(err).toBeInstanceOf(AuthorizationError);
    expect(err.message).toMatch(/not for .*refusing to request a token for another resource/);
    expect(as.exchanges).toHaveLength(0);
  });

  it('keeps the client secret out of its errors', async () => {
    const { issuer } = await authorizationServer({ tokenError: true });
    const rs = await resourceServer(issuer, (res) => json(res, { ok: true }));
    const err = await new OAuthClient(rs.url, CC).fetch(rs.url, { method: 'POST', body: '{}' }).catch((e) => e);
    expect(err).toBeInstanceOf(AuthorizationError);
    expect(err.oauthError).toBe('invalid_client');
    expect(`${err.message} ${err.stack}`).not.toContain('very-secret-value');
  });
});

describe('refresh tokens', () => {
  it('go only to the authorization server that issued them: after a move to another one, it authorizes there afresh', async () => {
    const first = await authorizationServer();
    const second = await authorizationServer();
    let current = first.issuer;
    let reject = false;
    const rs = await resourceServer(
      () => current(),
      (res) => {
        if (reject) {
          reject = false;
          return void res
            .writeHead(401, {
              'www-authenticate': `Bearer error="invalid_token", resource_metadata="${rs.url.replace(/\/mcp$/, '')}/.well-known/oauth-protected-resource/mcp"`,
            })
            .end();
        }
        json(res, { ok: true });
      },
    );
    const store = new MemoryTokenStore();
    const oauth = new OAuthClient(rs.url, { ...CC, store });
    await oauth.fetch(rs.url, { method: 'POST', body: '{}' });
    expect((await oauth.currentTokens())?.issuer).toBe(first.issuer());
    // The resource moves to the second authorization server and refuses the first one's token.
    current = second.issuer;
    reject = true;
    expect((await oauth.fetch(rs.url, { method: 'POST', body: '{}' })).status).toBe(200);
    expect(second.tokenForms.map((f) => f.get('grant_type'))).toEqual(['client_credentials']);
    expect(second.tokenForms.some((f) => f.has('refresh_token'))).toBe(false);
    expect(first.tokenForms.map((f) => f.get('grant_type'))).toEqual(['client_credentials']);
    expect((await oauth.currentTokens())?.issuer).toBe(second.issuer());
  });
});
