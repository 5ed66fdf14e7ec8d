/**
 * Instances sharing one store (a real redis-server, one SQLite file, one memory store) that make
 * the first signing key, or rotate it by age, at the same moment converge on one key set: every
 * token either signs verifies at both, and the set holds one new key, not one per instance. Two
 * facades on one Redis publish the same JWKS after racing their first use and two rotations.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthProxy } from '../../src/auth-proxy/facade.js';
import { RedisAuthProxyStore } from '../../src/auth-proxy/redis-store.js';
import { SigningKeys } from '../../src/auth-proxy/signing.js';
import { SqliteAuthProxyStore } from '../../src/auth-proxy/sqlite-store.js';
import { MemoryAuthProxyStore, type AuthProxyStore } from '../../src/auth-proxy/store.js';
import { TokenVerifier } from '../../src/policy/auth/token-verifier.js';
import { REDIS_SERVER, TestRedis } from '../helpers/redis.js';
import { ENCRYPTION_KEY } from './helpers/facade-server.js';
import { AUDIENCE, CLAIMS, ISSUER, kidOf, kidsOf, sealer, verdict } from './helpers/signing.js';

const ROUNDS = 8;

let dir: string;
let redis: TestRedis | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolwright-signing-races-'));
  if (REDIS_SERVER) redis = await TestRedis.create();
});
afterAll(async () => {
  await redis?.destroy();
  await rm(dir, { recursive: true, force: true });
});

/** Two handles on one fresh shared store (a new Redis prefix, a new SQLite file, one memory map), per round. */
type SharedStore = (round: string, now: () => number) => [AuthProxyStore, AuthProxyStore];
const stores: Array<[string, SharedStore]> = [
  [
    'memory',
    (_round, now) => {
      const store = new MemoryAuthProxyStore(now);
      return [store, store];
    },
  ],
  ['sqlite', (round, now) => [new SqliteAuthProxyStore(join(dir, `${round}.db`), now), new SqliteAuthProxyStore(join(dir, `${round}.db`), now)]],
  ...(REDIS_SERVER
    ? [
        ['redis', (round: string) => [new RedisAuthProxyStore(redis!.url, `${round}:`), new RedisAuthProxyStore(redis!.url, `${round}:`)]] as [
          string,
          SharedStore,
        ],
      ]
    : []),
];

async function closeAll(pair: AuthProxyStore[]): Promise<void> {
  for (const store of new Set(pair)) await store.close?.();
}

describe.each(stores)('two instances sharing a %s store', (name, shared) => {
  it('making the first key at the same moment: one key between them, every token verifies at both', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const pair = shared(`create-${name}-${round}`, Date.now);
      try {
        const [a, b] = pair.map((store) => new SigningKeys(store, sealer, { graceMs: 60_000 }));
        const tokens = await Promise.all([a, b, a, b].map((keys) => keys.sign(ISSUER, AUDIENCE, CLAIMS, 900)));
        expect(new Set(tokens.map(kidOf)).size).toBe(1);
        expect(await kidsOf(a)).toEqual(await kidsOf(b));
        expect(await kidsOf(a)).toHaveLength(1);
        for (const token of tokens) {
          expect(await verdict(a, token)).toBe('accepted');
          expect(await verdict(b, token)).toBe('accepted');
        }
      } finally {
        await closeAll(pair);
      }
    }
  });

  it('rotating by age at the same moment: one new key between them, every token verifies at both', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      let now = Date.now();
      const pair = shared(`age-${name}-${round}`, () => now);
      try {
        const [a, b] = pair.map((store) => new SigningKeys(store, sealer, { graceMs: 60_000, maxAgeMs: 3_600_000, now: () => now }));
        const first = kidOf(await a.sign(ISSUER, AUDIENCE, CLAIMS, 900));
        now += 3_600_000;
        const tokens = await Promise.all([a, b, a, b].map((keys) => keys.sign(ISSUER, AUDIENCE, CLAIMS, 900)));
        const kids = new Set(tokens.map(kidOf));
        expect(kids.size).toBe(1);
        expect(kids.has(first)).toBe(false);
        expect(await kidsOf(a)).toEqual([first, ...kids]);
        expect(await kidsOf(b)).toEqual([first, ...kids]);
        for (const token of tokens) {
          expect(await verdict(a, token)).toBe('accepted');
          expect(await verdict(b, token)).toBe('accepted');
        }
      } finally {
        await closeAll(pair);
      }
    }
  });

  it('two rotations asked at the same moment both count: each new key is published at both', async () => {
    const pair = shared(`asked-${name}`, Date.now);
    try {
      const [a, b] = pair.map((store) => new SigningKeys(store, sealer, { graceMs: 60_000 }));
      const first = kidOf(await a.sign(ISSUER, AUDIENCE, CLAIMS, 900));
      const rotated = await Promise.all([a.rotate(), b.rotate()]);
      const kids = await kidsOf(a);
      expect(await kidsOf(b)).toEqual(kids);
      expect(kids).toHaveLength(3);
      expect(kids).toEqual(expect.arrayContaining([first, ...rotated]));
      const after = await Promise.all([a, b].map((keys) => keys.sign(ISSUER, AUDIENCE, CLAIMS, 900)));
      expect(kidOf(after[0])).toBe(kids.at(-1));
      expect(kidOf(after[1])).toBe(kids.at(-1));
    } finally {
      await closeAll(pair);
    }
  });
});

describe.skipIf(!REDIS_SERVER)('two facades on one Redis', () => {
  it('racing their first use and a rotation each: both publish the same JWKS, holding both new keys', async () => {
    const resource = 'http://127.0.0.1:1/mcp';
    const facade = () =>
      createAuthProxy(
        {
          provider: 'oidc',
          issuer: 'http://127.0.0.1:2',
          clientId: 'tw',
          clientSecret: 'secret',
          encryptionKey: ENCRYPTION_KEY,
          store: new RedisAuthProxyStore(redis!.url, 'facades:'),
        },
        resource,
      );
    const [a, b] = [facade(), facade()];
    try {
      const jwksOf = async (proxy: typeof a) => (await proxy.resourceServer().jwks!()).keys.map((k) => (k as { kid: string }).kid);
      const [firstA, firstB] = await Promise.all([jwksOf(a), jwksOf(b)]);
      expect(firstA).toEqual(firstB);
      expect(firstA).toHaveLength(1);
      const rotated = await Promise.all([a.rotateSigningKey(), b.rotateSigningKey()]);
      const [afterA, afterB] = await Promise.all([jwksOf(a), jwksOf(b)]);
      expect(afterA).toEqual(afterB);
      expect(afterA).toEqual(expect.arrayContaining([...firstA, ...rotated]));
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe("the resource server's check of the facade's tokens", () => {
  it('a kid not in the keys it read reads them once more before refusing', async () => {
    const pair = async (kid: string) => {
      const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
      return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
    };
    const [old, fresh, stranger] = await Promise.all([pair('old'), pair('fresh'), pair('stranger')]);
    // The first read predates the key another instance just made; every later read has it.
    let reads = 0;
    const verifier = new TokenVerifier({
      resource: AUDIENCE,
      issuer: ISSUER,
      algorithms: ['ES256'],
      jwks: async () => ({ keys: reads++ === 0 ? [old.jwk] : [old.jwk, fresh.jwk] }),
    });
    const signed = (key: typeof old) =>
      new SignJWT({ ...CLAIMS })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key.privateKey);
    expect((await verifier.verify(await signed(fresh))).subject).toBe('u');
    expect(reads).toBe(2);
    await expect(verifier.verify(await signed(stranger))).rejects.toThrow(/key this server does not know/);
    expect(reads).toBe(4);
  });
});
