/**
 * Signing-key rotation: a rotated key set keeps the previous key published (and accepted) for a
 * token's lifetime, new tokens carry the new `kid`, a key past its grace leaves the JWKS, an age
 * limit rotates on its own, every instance sharing a store follows a rotation at once, and a
 * store made before rotation existed keeps its key. End to end: a token signed before a rotation
 * and first shown after it is accepted; a refresh after it carries the new key.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisAuthProxyStore } from '../../src/auth-proxy/redis-store.js';
import { SigningKeys } from '../../src/auth-proxy/signing.js';
import { SqliteAuthProxyStore } from '../../src/auth-proxy/sqlite-store.js';
import { MemoryAuthProxyStore, type AuthProxyStore } from '../../src/auth-proxy/store.js';
import { REDIS_SERVER, TestRedis } from '../helpers/redis.js';
import { startOidcFacade, type OidcFacade } from './helpers/facade-server.js';
import { codeGrant, token } from './helpers/flow.js';
import { AUDIENCE, CLAIMS, ISSUER, kidOf, kidsOf, sealer, verdict } from './helpers/signing.js';

let dir: string;
let redis: TestRedis | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolwright-signing-'));
  if (REDIS_SERVER) redis = await TestRedis.create();
});
afterAll(async () => {
  await redis?.destroy();
  await rm(dir, { recursive: true, force: true });
});

describe('SigningKeys', () => {
  it('rotation: the new key signs, the previous stays accepted for the grace period, then leaves the JWKS', async () => {
    let now = 1_000_000;
    const keys = new SigningKeys(new MemoryAuthProxyStore(() => now), sealer, { graceMs: 60_000, now: () => now });
    const before = await keys.sign(ISSUER, AUDIENCE, CLAIMS, 900);
    const oldKid = kidOf(before);
    const newKid = await keys.rotate();
    expect(newKid).not.toBe(oldKid);
    const after = await keys.sign(ISSUER, AUDIENCE, CLAIMS, 900);
    expect(kidOf(after)).toBe(newKid);
    expect(await kidsOf(keys)).toEqual([oldKid, newKid]);
    expect(await verdict(keys, before)).toBe('accepted');
    expect(await verdict(keys, after)).toBe('accepted');
    now += 60_001;
    expect(await kidsOf(keys)).toEqual([newKid]);
    expect(await verdict(keys, before)).toBe('ERR_JWKS_NO_MATCHING_KEY');
  });

  it('signingKeyMaxAgeDays: a key that old is rotated by the next token, once however many are signed at that moment', async () => {
    let now = 1_000_000;
    const keys = new SigningKeys(new MemoryAuthProxyStore(() => now), sealer, { graceMs: 60_000, maxAgeMs: 3_600_000, now: () => now });
    const first = kidOf(await keys.sign(ISSUER, AUDIENCE, CLAIMS, 900));
    now += 3_600_000;
    const signed = await Promise.all(Array.from({ length: 5 }, () => keys.sign(ISSUER, AUDIENCE, CLAIMS, 900)));
    const kids = new Set(signed.map(kidOf));
    expect(kids.size).toBe(1);
    expect(kids.has(first)).toBe(false);
    expect(await kidsOf(keys)).toEqual([first, ...kids]);
  });

  it('a store written before rotation existed keeps its one key: tokens signed with it still verify', async () => {
    const store = new MemoryAuthProxyStore();
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const legacy = { ...(await exportJWK(privateKey)), kid: 'legacy-kid' };
    await store.put('signing-key', sealer.seal(JSON.stringify(legacy), 'signing-key'), 60_000);
    const keys = new SigningKeys(store, sealer, { graceMs: 60_000 });
    expect(await kidsOf(keys)).toEqual(['legacy-kid']);
    expect(kidOf(await keys.sign(ISSUER, AUDIENCE, CLAIMS, 900))).toBe('legacy-kid');
  });

  const shared: Array<[string, () => AuthProxyStore]> = [
    ['sqlite', () => new SqliteAuthProxyStore(join(dir, 'shared.db'))],
    ...(REDIS_SERVER ? [['redis', () => new RedisAuthProxyStore(redis!.url, `sk-${process.pid}`)] as [string, () => AuthProxyStore]] : []),
  ];
  it.each(shared)('two instances sharing a %s store follow one rotation at once', async (_name, make) => {
    const [storeA, storeB] = [make(), make()];
    try {
      const a = new SigningKeys(storeA, sealer, { graceMs: 60_000 });
      const b = new SigningKeys(storeB, sealer, { graceMs: 60_000 });
      const oldKid = kidOf(await a.sign(ISSUER, AUDIENCE, CLAIMS, 900));
      expect(kidOf(await b.sign(ISSUER, AUDIENCE, CLAIMS, 900))).toBe(oldKid);
      const newKid = await a.rotate();
      const fromB = await b.sign(ISSUER, AUDIENCE, CLAIMS, 900);
      expect(kidOf(fromB)).toBe(newKid);
      expect(await kidsOf(b)).toEqual([oldKid, newKid]);
      expect(await verdict(a, fromB)).toBe('accepted');
    } finally {
      await storeA.close?.();
      await storeB.close?.();
    }
  });
});

describe('rotating the facade’s key', () => {
  let server: OidcFacade;
  beforeAll(async () => {
    server = await startOidcFacade();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a token signed before the rotation and first used after it is accepted; the JWKS lists both keys; a refresh signs with the new one', async () => {
    const { client, issued } = await codeGrant(server.origin);
    const oldKid = kidOf(issued.body.access_token);
    const newKid = await server.proxy.rotateSigningKey();
    const jwks = (await (await fetch(`${server.origin}/oauth/jwks`)).json()) as { keys: Array<{ kid: string; d?: string }> };
    expect(jwks.keys.map((k) => k.kid)).toEqual([oldKid, newKid]);
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
    const call = (accessToken: string) =>
      fetch(server.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      });
    expect((await call(issued.body.access_token)).status).toBe(200);
    const refreshed = await token(server.origin, { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token, client_id: client.client_id });
    expect(kidOf(refreshed.body.access_token)).toBe(newKid);
    expect((await call(refreshed.body.access_token)).status).toBe(200);
  });
});
