import { createPublicKey, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { generateApiKey, hashApiKey } from '../../../src/policy/auth/api-keys.js';
import type { ResourceServerOptions } from '../../../src/policy/auth/options.js';
import { AuthUnavailableError, InvalidTokenError } from '../../../src/policy/auth/token-error.js';
import { MAX_PENDING_VERIFICATIONS, TokenVerifier } from '../../../src/policy/auth/token-verifier.js';
import { RESOURCE_SERVER, startAuthorizationServer, type LocalAuthorizationServer } from '../../helpers/oidc.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';
const OPAQUE_RESOURCE = 'http://127.0.0.1:9/opaque-mcp';

let as: LocalAuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer();
  as.opaqueResources.add(OPAQUE_RESOURCE);
});
afterAll(() => as?.close());

const verifier = (options: Partial<ResourceServerOptions> = {}, now?: () => number) =>
  new TokenVerifier({ issuer: as.issuer, resource: RESOURCE, ...options }, now);

async function refusal(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the token to be refused');
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('JWT access tokens from a real authorization server', () => {
  it('accepts a valid token and reads subject, client and scopes from it', async () => {
    const { access_token } = await as.token({ resource: RESOURCE, scope: 'tools:read reports' });
    const info = await verifier().verify(access_token);
    expect(info).toMatchObject({ id: 'agent', subject: 'agent', clientId: 'agent', method: 'jwt' });
    expect([...info.scopes!].sort()).toEqual(['reports', 'tools:read']);
    expect(info.claims.iss).toBe(as.issuer);
    expect(JSON.stringify(info)).not.toContain(access_token);
  });

  it('refuses an expired token, also when its earlier verification is cached', async () => {
    const { access_token } = await as.token({ resource: RESOURCE });
    const { exp } = decodeJwt(access_token);
    let now = Date.now();
    const v = verifier({}, () => now);
    await v.verify(access_token);
    now = (exp! + 31) * 1000; // past exp and the 30 s skew
    const err = await refusal(v.verify(access_token));
    expect(err).toBeInstanceOf(InvalidTokenError);
    expect(err.message).toMatch(/expired/);
    const fresh = await refusal(verifier({}, () => now).verify(access_token));
    expect(fresh.message).toMatch(/expired/);
  });

  it('tolerates a small clock skew only', async () => {
    const { access_token } = await as.token({ resource: RESOURCE });
    const { exp } = decodeJwt(access_token);
    await expect(verifier({}, () => (exp! + 10) * 1000).verify(access_token)).resolves.toMatchObject({ id: 'agent' });
  });

  it('refuses a token that is not yet valid (nbf in the future)', async () => {
    as.extraClaims = { nbf: Math.floor(Date.now() / 1000) + 3600 };
    try {
      const { access_token } = await as.token({ resource: RESOURCE });
      expect(decodeJwt(access_token).nbf).toBeGreaterThan(Date.now() / 1000);
      expect((await refusal(verifier().verify(access_token))).message).toMatch(/not yet valid/);
    } finally {
      as.extraClaims = undefined;
    }
  });

  it('refuses a token whose issuer is not the configured one', async () => {
    const { access_token } = await as.token({ resource: RESOURCE });
    const v = verifier({ issuer: `${as.issuer}/tenant-b`, jwksUri: `${as.issuer}/jwks` });
    const err = await refusal(v.verify(access_token));
    expect(err).toBeInstanceOf(InvalidTokenError);
    expect(err.message).toMatch(/another authorization server/);
  });

  it('refuses a token issued for another resource, and accepts a configured extra audience', async () => {
    const { access_token } = await as.token({ resource: 'https://other.example/mcp' });
    expect(decodeJwt(access_token).aud).toBe('https://other.example/mcp');
    expect((await refusal(verifier().verify(access_token))).message).toMatch(/another resource/);
    await expect(verifier({ audience: [RESOURCE, 'https://other.example/mcp'] }).verify(access_token)).resolves.toMatchObject({ id: 'agent' });
  });

  it('matches the audience with an upper-case scheme and host (canonical URI)', async () => {
    const { access_token } = await as.token({ resource: RESOURCE });
    await expect(verifier({ resource: 'HTTP://127.0.0.1:9/mcp' }).verify(access_token)).resolves.toMatchObject({ id: 'agent' });
  });

  it('refuses alg "none" built from a real token', async () => {
    const { access_token } = await as.token({ resource: RESOURCE });
    const payload = access_token.split('.')[1];
    const header = { ...decodeProtectedHeader(access_token), alg: 'none' };
    for (const forged of [`${b64(header)}.${payload}.`, `${b64(header)}.${payload}.${access_token.split('.')[2]}`]) {
      const err = await refusal(verifier().verify(forged));
      expect(err).toBeInstanceOf(InvalidTokenError);
    }
  });

  it('refuses HS256 signed with the public key (algorithm confusion)', async () => {
    const { access_token } = await as.token({ resource: RESOURCE });
    const [, payload] = access_token.split('.');
    const jwk = as.publicJwks()[0];
    const pem = createPublicKey({ key: jwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
    for (const secret of [pem, JSON.stringify(jwk), jwk.n!]) {
      const header = b64({ alg: 'HS256', typ: 'at+jwt', kid: jwk.kid });
      const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
      const err = await refusal(verifier().verify(`${header}.${payload}.${signature}`));
      expect(err).toBeInstanceOf(InvalidTokenError);
      expect(err.message).toMatch(/algorithm/);
    }
  });

  it('refuses a token whose payload was changed after signing (more scopes)', async () => {
    const { access_token } = await as.token({ resource: RESOURCE, scope: 'tools:read' });
    const [header, , signature] = access_token.split('.');
    const tampered = `${header}.${b64({ ...decodeJwt(access_token), scope: 'tools:read admin' })}.${signature}`;
    expect((await refusal(verifier().verify(tampered))).message).toMatch(/signature/);
  });

  it('refuses a token signed by a key the issuer never published', async () => {
    const { access_token } = await as.token({ resource: RESOURCE });
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(decodeJwt(access_token)).setProtectedHeader({ alg: 'ES256', kid: 'key-1' }).sign(privateKey);
    expect(await refusal(verifier().verify(forged))).toBeInstanceOf(InvalidTokenError);
  });

  it('refuses a configuration that allows a symmetric algorithm or none', () => {
    expect(() => verifier({ algorithms: ['RS256', 'HS256'] })).toThrow(/"HS256" is refused/);
    expect(() => verifier({ algorithms: ['none'] })).toThrow(/"none" is refused/);
  });

  it('discovers the key set from the issuer (RFC 8414 / OpenID discovery)', async () => {
    const { access_token } = await as.token({ resource: RESOURCE });
    await expect(verifier().verify(access_token)).resolves.toMatchObject({ id: 'agent' });
  });

  it('refuses metadata whose issuer differs from the configured one', async () => {
    const { access_token } = await as.token({ resource: RESOURCE });
    const err = await refusal(verifier({ issuer: `${as.issuer}/` }).verify(access_token));
    expect(err).toBeInstanceOf(AuthUnavailableError);
    expect(err.message).toMatch(/names issuer/);
  });
});

describe('key rotation', () => {
  it('accepts a token signed with a new key after one refetch, and refetches at most once per cooldown', async () => {
    const v = verifier({ jwksUri: `${as.issuer}/jwks`, jwksCooldownSeconds: 1 });
    const before = await as.token({ resource: RESOURCE });
    await v.verify(before.access_token);
    const fetchesBefore = as.jwksFetches;
    await as.rotateKeys();
    const after = await as.token({ resource: RESOURCE });
    expect(decodeProtectedHeader(after.access_token).kid).not.toBe(decodeProtectedHeader(before.access_token).kid);
    await new Promise((r) => setTimeout(r, 1_050));
    await expect(v.verify(after.access_token)).resolves.toMatchObject({ id: 'agent' });
    expect(as.jwksFetches).toBe(fetchesBefore + 1);
    // Made-up kids right after: refused, and no new fetch inside the cooldown.
    const { privateKey } = await generateKeyPair('ES256');
    for (let i = 0; i < 20; i++) {
      const forged = await new SignJWT(decodeJwt(after.access_token)).setProtectedHeader({ alg: 'ES256', kid: `made-up-${i}` }).sign(privateKey);
      expect((await refusal(v.verify(forged))).message).toMatch(/key this server does not know/);
    }
    expect(as.jwksFetches).toBe(fetchesBefore + 1);
    // The key that signed the first token is still published: it stays valid.
    await expect(v.verify(before.access_token)).resolves.toMatchObject({ id: 'agent' });
  });
});

describe('opaque tokens (introspection)', () => {
  const introspecting = (options: Partial<ResourceServerOptions> = {}) =>
    new TokenVerifier({
      issuer: as.issuer,
      resource: OPAQUE_RESOURCE,
      introspection: { clientId: RESOURCE_SERVER.id, clientSecret: RESOURCE_SERVER.secret, cacheTtlSeconds: 0 },
      ...options,
    });

  it('accepts an active token (endpoint discovered) and refuses it once revoked', async () => {
    const { access_token } = await as.token({ resource: OPAQUE_RESOURCE, scope: 'tools:read' });
    expect(access_token.split('.')).toHaveLength(1);
    const v = introspecting();
    await expect(v.verify(access_token)).resolves.toMatchObject({ id: 'client:agent', clientId: 'agent', scopes: ['tools:read'], method: 'introspection' });
    await as.revoke(access_token);
    const err = await refusal(v.verify(access_token));
    expect(err).toBeInstanceOf(InvalidTokenError);
    expect(err.message).toMatch(/not active/);
  });

  it('refuses an active token issued for another resource', async () => {
    const { access_token } = await as.token({ resource: OPAQUE_RESOURCE });
    const err = await refusal(introspecting({ resource: 'http://127.0.0.1:9/elsewhere' }).verify(access_token));
    expect(err.message).toMatch(/another resource/);
  });

  it('remembers an answer for no longer than the token lives', async () => {
    const { access_token, expires_in } = await as.token({ resource: OPAQUE_RESOURCE });
    let now = Date.now();
    const v = new TokenVerifier(
      {
        issuer: as.issuer,
        resource: OPAQUE_RESOURCE,
        introspection: { clientId: RESOURCE_SERVER.id, clientSecret: RESOURCE_SERVER.secret, cacheTtlSeconds: 3600 },
      },
      () => now,
    );
    await v.verify(access_token);
    now += (expires_in + 31) * 1000;
    // The authorization server still says active (its clock did not move), but the cached answer is over.
    expect((await refusal(v.verify(access_token))).message).toMatch(/expired/);
  });

  it("says so when the resource server credentials are wrong (503, not the client's fault)", async () => {
    const { access_token } = await as.token({ resource: OPAQUE_RESOURCE });
    const err = await refusal(introspecting({ introspection: { clientId: RESOURCE_SERVER.id, clientSecret: 'wrong' } }).verify(access_token));
    expect(err).toBeInstanceOf(AuthUnavailableError);
  });
});

describe('API keys', () => {
  it('accepts a configured key with its principal and scopes, refuses any other', async () => {
    const { key, hash } = generateApiKey();
    const v = new TokenVerifier({ resource: RESOURCE, apiKeys: [{ hash, principal: 'ci-bot', scopes: ['tools:read'] }] });
    await expect(v.verify(key)).resolves.toMatchObject({ id: 'ci-bot', scopes: ['tools:read'], method: 'api-key' });
    for (const wrong of [key.slice(0, -1), `${key}x`, hash, '']) {
      expect(await refusal(v.verify(wrong))).toBeInstanceOf(InvalidTokenError);
    }
  });

  it('stores only a hash, and refuses short keys and malformed hashes', () => {
    expect(hashApiKey('a'.repeat(32))).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    expect(() => hashApiKey('short')).toThrow(/at least 24/);
    expect(() => new TokenVerifier({ resource: RESOURCE, apiKeys: [{ hash: 'plain-text-key', principal: 'x' }] })).toThrow(/apiKeys\[0\]\.hash/);
  });

  it('works next to OAuth: a JWT still verifies', async () => {
    const { hash } = generateApiKey();
    const { access_token } = await as.token({ resource: RESOURCE });
    await expect(verifier({ apiKeys: [{ hash, principal: 'ci-bot' }] }).verify(access_token)).resolves.toMatchObject({ id: 'agent' });
  });
});

it('needs at least one mode', () => {
  expect(() => new TokenVerifier({ resource: RESOURCE })).toThrow(/issuer|apiKeys/);
});

describe('verifications in flight', () => {
  it('shares one check among concurrent requests with the same token, and caps distinct ones (no flood of introspection calls)', async () => {
    const { createServer } = await import('node:http');
    let calls = 0;
    const held: Array<() => void> = [];
    const stalled = createServer((_req, res) => {
      calls++;
      held.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"active":false}'));
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = stalled.address() as { port: number };
      const v = new TokenVerifier({
        resource: RESOURCE,
        introspection: { endpoint: `http://127.0.0.1:${port}/introspect`, clientId: 'rs', clientSecret: 'secret' },
      });
      const same = [v.verify('opaque-token-0'), v.verify('opaque-token-0')];
      const distinct = Array.from({ length: MAX_PENDING_VERIFICATIONS - 1 }, (_, i) => v.verify(`opaque-token-${i + 1}`));
      const over = await refusal(v.verify('one-too-many'));
      expect(over).toBeInstanceOf(AuthUnavailableError);
      await expect.poll(() => calls).toBe(MAX_PENDING_VERIFICATIONS);
      for (const answer of held.splice(0)) answer();
      for (const p of [...same, ...distinct]) expect(await refusal(p)).toBeInstanceOf(InvalidTokenError);
      // Capacity is back once they are answered.
      const again = v.verify('one-too-many');
      await expect.poll(() => held.length).toBe(1);
      held.pop()!();
      expect(await refusal(again)).toBeInstanceOf(InvalidTokenError);
    } finally {
      stalled.closeAllConnections();
      await new Promise((resolve) => stalled.close(resolve));
    }
  });
});

it('refuses to advertise offline_access (refresh tokens are no resource requirement)', () => {
  expect(() => new TokenVerifier({ resource: RESOURCE, apiKeys: [], issuer: 'https://as.example', scopesSupported: ['tools:read', 'offline_access'] })).toThrow(
    /offline_access/,
  );
});
