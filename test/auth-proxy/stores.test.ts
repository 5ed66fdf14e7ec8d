/**
 * The facade's stores: memory, a SQLite file and Redis keep the same promises (lifetimes, and
 * `take` gives a value to one of any number of racing requests, `compareAndSet` writes only
 * over what was read), and a restart with the SQLite
 * file keeps clients registered, grants alive and toolwright's signing key.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Grants } from '../../src/auth-proxy/grants.js';
import { RedisAuthProxyStore } from '../../src/auth-proxy/redis-store.js';
import { SqliteAuthProxyStore } from '../../src/auth-proxy/sqlite-store.js';
import { Sealer } from '../../src/auth-proxy/secrets.js';
import { MemoryAuthProxyStore, type AuthProxyStore } from '../../src/auth-proxy/store.js';
import { freePort } from '../helpers/free-port.js';
import { REDIS_SERVER, TestRedis } from '../helpers/redis.js';
import { startFacadeServer } from './helpers/facade-server.js';
import { codeGrant, token } from './helpers/flow.js';
import { startOidcUpstream, UPSTREAM_CLIENT, type UpstreamIdp } from './helpers/oidc-upstream.js';

let dir: string;
let redis: TestRedis | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolwright-proxy-stores-'));
  if (REDIS_SERVER) redis = await TestRedis.create();
});
afterAll(async () => {
  await redis?.destroy();
  await rm(dir, { recursive: true, force: true });
});

const stores: Array<[string, () => AuthProxyStore]> = [
  ['memory', () => new MemoryAuthProxyStore()],
  ['sqlite', () => new SqliteAuthProxyStore(join(dir, `s-${Math.random()}.db`))],
  ...(REDIS_SERVER ? [['redis', () => new RedisAuthProxyStore(redis!.url, `t${Math.random().toString(36).slice(2)}`)] as [string, () => AuthProxyStore]] : []),
];

describe.each(stores)('%s store', (_name, make) => {
  it('keeps values for their lifetime; take gives a value once, however many ask at once', async () => {
    const store = make();
    try {
      await store.put('a', 'one', 60_000);
      await store.put('short', 'gone', 1);
      await new Promise((r) => setTimeout(r, 20));
      expect(await store.get('a')).toBe('one');
      expect(await store.get('short')).toBeUndefined();
      expect(await store.take('short')).toBeUndefined();
      await store.put('code', 'x', 60_000);
      const taken = await Promise.all(Array.from({ length: 8 }, () => store.take('code')));
      expect(taken.filter((v) => v === 'x')).toHaveLength(1);
      await store.delete('a');
      expect(await store.get('a')).toBeUndefined();
    } finally {
      await store.close?.();
    }
  });
});

describe.each(stores)('compare-and-set in the %s store', (_name, make) => {
  it('writes only over what was read (an expired value counts as none); of racing writers over one value, one wins', async () => {
    const store = make();
    try {
      const cas = store.compareAndSet!.bind(store);
      expect(await cas('set', undefined, 'v1', 60_000)).toBe(true);
      expect(await cas('set', undefined, 'other', 60_000)).toBe(false);
      expect(await cas('set', 'stale', 'other', 60_000)).toBe(false);
      expect(await store.get('set')).toBe('v1');
      const racing = await Promise.all(Array.from({ length: 8 }, (_, i) => cas('set', 'v1', `v2-${i}`, 60_000)));
      expect(racing.filter(Boolean)).toHaveLength(1);
      expect(await store.get('set')).toBe(`v2-${racing.indexOf(true)}`);
      await store.put('short', 'gone', 1);
      await new Promise((r) => setTimeout(r, 20));
      expect(await cas('short', 'gone', 'late', 60_000)).toBe(false);
      expect(await cas('short', undefined, 'fresh', 60_000)).toBe(true);
      expect(await store.get('short')).toBe('fresh');
    } finally {
      await store.close?.();
    }
  });
});

describe.each(stores)('grants in the %s store', (_name, make) => {
  it('a grant is live until ended; a save racing its end (a refresh in flight) does not bring it back', async () => {
    const store = make();
    try {
      const grants = new Grants(store, new Sealer('0123456789abcdef0123456789abcdef'), 60_000);
      const grant = await grants.create({ clientId: 'c', subject: 'u', scopes: [] }, { accessToken: 'upstream', scopes: [] });
      const other = await grants.create({ clientId: 'c', subject: 'v', scopes: [] }, { accessToken: 'upstream', scopes: [] });
      expect(await grants.isLive(grant.id)).toBe(true);
      expect(await grants.isLive('never-issued')).toBe(false);
      await grants.end(grant);
      await grants.save(grant); // what a refresh that read the grant before its end writes after it
      expect(await grants.isLive(grant.id)).toBe(false);
      expect(await grants.get(grant.id)).toBeUndefined();
      expect(await grants.isLive(other.id)).toBe(true);
    } finally {
      await store.close?.();
    }
  });
});

describe('a restart with the SQLite store', () => {
  let idp: UpstreamIdp | undefined;
  afterAll(async () => {
    await idp?.close();
  });

  it('keeps the client, the grant and the signing key: the refresh token from before the restart works after it', async () => {
    const port = await freePort();
    const file = join(dir, 'restart.db');
    const start = () =>
      startFacadeServer(
        async (callbackUrl) => {
          idp ??= await startOidcUpstream({ callbackUrl });
          return {
            provider: 'oidc',
            issuer: idp.issuer,
            clientId: UPSTREAM_CLIENT.id,
            clientSecret: UPSTREAM_CLIENT.secret,
            store: new SqliteAuthProxyStore(file),
          };
        },
        { port },
      );
    let server = await start();
    const { client, issued: first } = await codeGrant(server.origin);
    await server.close();
    // Let the client side see the old server's sockets closed before the new one listens on the port.
    await new Promise((r) => setTimeout(r, 100));
    server = await start();
    try {
      const next = await token(server.origin, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: client.client_id });
      expect(next.status).toBe(200);
      // The access token from before the restart still verifies: the key was kept.
      const res = await fetch(server.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${first.body.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      });
      expect(res.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
