/**
 * DPoP (RFC 9449, SEP-1932) in the OAuth client: bound tokens only when both
 * the authorization server and the resource server take them, a fresh proof
 * on every request (method, URL, token hash, the server's nonce), nonces
 * honoured once, and the key kept with the tokens it binds.
 */
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { DpopKey } from '../../../src/client/auth/dpop.js';
import { MemoryTokenStore, OAuthClient } from '../../../src/client.js';
import { json, type Exchange } from '../../helpers/scripted-http.js';
import { scriptedServersPerTest } from '../../helpers/scripted-servers.js';

const start = scriptedServersPerTest();

/** Checks a proof as a resource or authorization server would; returns its claims and key thumbprint. */
async function verifyProof(proof: string | undefined) {
  expect(proof).toBeTypeOf('string');
  const header = decodeProtectedHeader(proof!);
  expect(header).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256' });
  expect((header.jwk as JWK).d).toBeUndefined();
  const { payload } = await jwtVerify(proof!, await importJWK(header.jwk as JWK, 'ES256'));
  return { claims: payload, jkt: await calculateJwkThumbprint(header.jwk as JWK) };
}

describe('DpopKey.proof', () => {
  it('signs a fresh proof naming the method, the URL without query or fragment, the token hash and the nonce', async () => {
    const key = await DpopKey.generate();
    const a = await verifyProof(await key.proof('post', 'https://mcp.example.com/mcp?x=1#f', { accessToken: 'tok', nonce: 'n1' }));
    const b = await verifyProof(await key.proof('POST', 'https://mcp.example.com/mcp'));
    expect(a.claims).toMatchObject({
      htm: 'POST',
      htu: 'https://mcp.example.com/mcp',
      nonce: 'n1',
      ath: createHash('sha256').update('tok').digest('base64url'),
    });
    expect(b.claims.ath).toBeUndefined();
    expect(a.claims.jti).not.toBe(b.claims.jti);
    expect(a.jkt).toBe(b.jkt);
    const restored = await DpopKey.restore(key.privateJwk);
    expect((await verifyProof(await restored!.proof('GET', 'https://x.example/'))).jkt).toBe(a.jkt);
    expect(await DpopKey.restore({ kty: 'oct', k: 'x' })).toBeUndefined();
  });
});

/** An authorization server that binds tokens to the proof's key, asking once for its nonce. */
async function dpopAuthorizationServer(log: Exchange[]) {
  const as = await start(async (req, res, x) => {
    const issuer = as.url.replace(/\/mcp$/, '');
    if (req.url === '/.well-known/oauth-authorization-server') {
      return json(res, {
        issuer,
        token_endpoint: `${issuer}/token`,
        dpop_signing_alg_values_supported: ['ES256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    log.push(x);
    const proof = req.headers.dpop as string | undefined;
    if (!proof) return json(res, { access_token: 'bearer-token', token_type: 'Bearer', expires_in: 3600 });
    const { claims, jkt } = await verifyProof(proof);
    if (claims.nonce !== 'as-nonce') {
      res.writeHead(400, { 'content-type': 'application/json', 'dpop-nonce': 'as-nonce' }).end(JSON.stringify({ error: 'use_dpop_nonce' }));
      return;
    }
    json(res, { access_token: `dpop-token.${jkt}`, token_type: 'DPoP', expires_in: 3600 });
  });
  return as;
}

describe('OAuthClient with DPoP', () => {
  it('asks for a bound token when both servers take DPoP, and proves possession on every request, with the nonces asked for', async () => {
    const asLog: Exchange[] = [];
    const as = await dpopAuthorizationServer(asLog);
    const seen: Array<{ scheme: string; nonce?: unknown }> = [];
    const rs = await start(async (req, res) => {
      if (req.url?.startsWith('/.well-known/oauth-protected-resource'))
        return json(res, { resource: rs.url, authorization_servers: [as.url.replace(/\/mcp$/, '')] });
      const authorization = String(req.headers.authorization ?? '');
      if (!authorization) return void res.writeHead(401, { 'www-authenticate': 'DPoP algs="ES256"' }).end();
      const [scheme, token] = authorization.split(' ');
      const { claims, jkt } = await verifyProof(req.headers.dpop as string);
      seen.push({ scheme, nonce: claims.nonce });
      expect(token).toBe(`dpop-token.${jkt}`); // bound to the key that proves it
      expect(claims).toMatchObject({ htm: 'POST', htu: rs.url, ath: createHash('sha256').update(token).digest('base64url') });
      if (claims.nonce !== 'rs-nonce') return void res.writeHead(401, { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': 'rs-nonce' }).end();
      json(res, { ok: true });
    });
    const store = new MemoryTokenStore();
    const oauth = new OAuthClient(rs.url, { grantType: 'client_credentials', clientId: 'svc', clientSecret: 's', store });
    expect((await oauth.fetch(rs.url, { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await oauth.fetch(rs.url, { method: 'POST', body: '{}' })).status).toBe(200);
    // Token endpoint: a proof, refused once for want of the nonce, then a bound token.
    expect(asLog).toHaveLength(2);
    expect(asLog.every((x) => typeof x.headers.dpop === 'string')).toBe(true);
    // Resource: DPoP scheme every time; the nonce asked for once, then carried.
    expect(seen).toEqual([{ scheme: 'DPoP' }, { scheme: 'DPoP', nonce: 'rs-nonce' }, { scheme: 'DPoP', nonce: 'rs-nonce' }]);
    const stored = (await store.loadTokens(rs.url))!;
    expect(stored.tokenType).toBe('DPoP');
    expect(stored.dpopKey?.d).toBeTypeOf('string');
  });

  it('stays with Bearer tokens for a resource server that does not take DPoP, whatever the authorization server offers', async () => {
    const asLog: Exchange[] = [];
    const as = await dpopAuthorizationServer(asLog);
    const rs = await start((req, res) => {
      if (req.url?.startsWith('/.well-known/oauth-protected-resource'))
        return json(res, { resource: rs.url, authorization_servers: [as.url.replace(/\/mcp$/, '')] });
      if (req.headers.authorization !== 'Bearer bearer-token') return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      json(res, { ok: true });
    });
    const oauth = new OAuthClient(rs.url, { grantType: 'client_credentials', clientId: 'svc', clientSecret: 's' });
    expect((await oauth.fetch(rs.url, { method: 'POST', body: '{}' })).status).toBe(200);
    expect(asLog.map((x) => x.headers.dpop)).toEqual([undefined]);
  });

  it('refuses a DPoP token it never asked for with a proof', async () => {
    const as = await start((req, res) => {
      const issuer = as.url.replace(/\/mcp$/, '');
      if (req.url === '/.well-known/oauth-authorization-server') return json(res, { issuer, token_endpoint: `${issuer}/token` });
      json(res, { access_token: 'x', token_type: 'DPoP' });
    });
    const rs = await start((req, res) => {
      if (req.url?.startsWith('/.well-known/oauth-protected-resource'))
        return json(res, { resource: rs.url, authorization_servers: [as.url.replace(/\/mcp$/, '')] });
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    });
    const err = await new OAuthClient(rs.url, { grantType: 'client_credentials', clientId: 'svc', clientSecret: 's' })
      .fetch(rs.url, { method: 'POST', body: '{}' })
      .catch((e) => e);
    expect(err.message).toMatch(/of type "DPoP"/);
  });
});
