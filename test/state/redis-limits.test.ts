import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/policy/rate-limit.js';
import { redisConnection } from '../../src/state/redis/connection.js';
import { redisLimiters } from '../../src/state/redis/limits.js';
import { REDIS_SERVER, TestRedis } from '../helpers/redis.js';

let redis: TestRedis;
let probe: Redis;
let prefixes = 0;

beforeAll(async () => {
  if (REDIS_SERVER) {
    redis = await TestRedis.create();
    probe = new Redis(redis.url);
  }
});
afterAll(async () => {
  probe?.disconnect();
  await redis?.destroy();
});

/** Calls of one command by name, as Redis counts them (commandstats: scripts' own commands included). */
async function commandCalls(): Promise<Record<string, number>> {
  const info = await probe.info('commandstats');
  return Object.fromEntries([...info.matchAll(/^cmdstat_(\w+(?:\|\w+)?):calls=(\d+)/gm)].map(([, name, calls]) => [name, Number(calls)]));
}

/** A limiter on a connection that is up (before it is, RateLimiterRedis refuses too: rejectIfRedisNotReady). */
async function limiterFor(perPrincipal: number, perTool: number, onFailure: 'refuse' | 'open' = 'refuse', tools?: Record<string, false>) {
  const keyPrefix = `lim${++prefixes}-${process.pid}:`;
  const connection = redisConnection(redis.url, { keyPrefix });
  const createLimiter = redisLimiters(connection, onFailure);
  const limiter = new RateLimiter({
    perPrincipal: { points: perPrincipal, durationSeconds: 60 },
    perTool: { points: perTool, durationSeconds: 60 },
    ...(tools ? { tools } : {}),
    createLimiter,
  });
  expect(await connection.run((c) => c.ping())).toBe('PONG');
  return { limiter, keyPrefix, connection, createLimiter };
}

describe.skipIf(!REDIS_SERVER)('rate limits in Redis', () => {
  it("take a call's two points with one Redis command, in the keys and counts RateLimiterRedis uses", async () => {
    const { limiter, keyPrefix, connection } = await limiterFor(100, 1000);
    const before = await commandCalls();
    for (let i = 0; i < 5; i++) expect(await limiter.consume('t', 'alice')).toEqual({ allowed: true });
    expect(await limiter.consume('t', undefined)).toEqual({ allowed: true });
    const after = await commandCalls();
    const scriptCalls = (after.evalsha ?? 0) - (before.evalsha ?? 0) + (after.eval ?? 0) - (before.eval ?? 0);
    expect(scriptCalls).toBe(6);
    expect((after.incrby ?? 0) - (before.incrby ?? 0)).toBe(0); // not RateLimiterRedis's script on the way
    expect(await probe.get(`${keyPrefix}rl:principal:p:alice`)).toBe('5');
    expect(await probe.get(`${keyPrefix}rl:principal:anonymous`)).toBe('1');
    expect(await probe.get(`${keyPrefix}rl:tool:t`)).toBe('6');
    const ttl = await probe.pttl(`${keyPrefix}rl:tool:t`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await connection.release();
  });

  it('take the points of calls asking together with one Redis command, each counted as if alone, in the order asked', async () => {
    const { limiter, keyPrefix, connection } = await limiterFor(5, 7, 'refuse', { free: false });
    const before = await commandCalls();
    const asked = [
      ...Array.from({ length: 10 }, () => limiter.consume('t', 'alice')),
      ...Array.from({ length: 3 }, () => limiter.consume('t', 'bob')),
      limiter.consume('free', 'carol'),
      limiter.consume('t', undefined),
    ];
    const decisions = await Promise.all(asked);
    const after = await commandCalls();
    expect((after.evalsha ?? 0) - (before.evalsha ?? 0) + (after.eval ?? 0) - (before.eval ?? 0)).toBe(1);
    const scopes = decisions.map((d) => (d.allowed ? 'ok' : d.scope));
    expect(scopes).toEqual([...Array(5).fill('ok'), ...Array(5).fill('principal'), 'ok', 'ok', 'tool', 'ok', 'tool']);
    for (const d of decisions) if (!d.allowed) expect(d.retryAfterMs).toBeGreaterThan(0);
    // Every point asked for is counted, a refused one too; alice's refused calls spent none of the tool's.
    expect(await probe.get(`${keyPrefix}rl:principal:p:alice`)).toBe('10');
    expect(await probe.get(`${keyPrefix}rl:principal:p:bob`)).toBe('3');
    expect(await probe.get(`${keyPrefix}rl:principal:p:carol`)).toBe('1');
    expect(await probe.get(`${keyPrefix}rl:principal:anonymous`)).toBe('1');
    expect(await probe.get(`${keyPrefix}rl:tool:t`)).toBe('9');
    expect(await probe.exists(`${keyPrefix}rl:tool:free`)).toBe(0);
    for (const key of ['principal:p:alice', 'tool:t']) {
      const ttl = await probe.pttl(`${keyPrefix}rl:${key}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    // The next turn's command continues the same counts and windows.
    expect(await limiter.consume('t', 'bob')).toMatchObject({ allowed: false, scope: 'tool' });
    expect(await probe.get(`${keyPrefix}rl:tool:t`)).toBe('10');
    await connection.release();
  });

  it('split a turn of more than 256 calls into runs of at most 256, counting every call once', async () => {
    const { limiter, keyPrefix, connection } = await limiterFor(1000, 1000);
    const before = await commandCalls();
    const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => limiter.consume('t', `caller${i % 7}`)));
    const after = await commandCalls();
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect((after.evalsha ?? 0) - (before.evalsha ?? 0) + (after.eval ?? 0) - (before.eval ?? 0)).toBe(2);
    expect(await probe.get(`${keyPrefix}rl:tool:t`)).toBe('300');
    expect(await probe.get(`${keyPrefix}rl:principal:p:caller0`)).toBe('43');
    await connection.release();
  });

  it('go on counting when Redis has forgotten the script (SCRIPT FLUSH, as after a restart)', async () => {
    const { limiter, keyPrefix, connection } = await limiterFor(100, 100);
    expect(await limiter.consume('t', 'alice')).toEqual({ allowed: true });
    await probe.script('FLUSH');
    const decisions = await Promise.all([limiter.consume('t', 'alice'), limiter.consume('t', 'bob')]);
    expect(decisions).toEqual([{ allowed: true }, { allowed: true }]);
    expect(await probe.get(`${keyPrefix}rl:principal:p:alice`)).toBe('2');
    expect(await probe.get(`${keyPrefix}rl:tool:t`)).toBe('3');
    await connection.release();
  });

  it("leave the tool's count alone when the caller is over its own limit, and refuse with the window's time left", async () => {
    const { limiter, keyPrefix, connection } = await limiterFor(2, 3);
    expect(await limiter.consume('t', 'alice')).toEqual({ allowed: true });
    expect(await limiter.consume('t', 'alice')).toEqual({ allowed: true });
    for (let i = 0; i < 4; i++) {
      const refused = (await limiter.consume('t', 'alice')) as { allowed: false; retryAfterMs: number; scope: string };
      expect(refused).toMatchObject({ allowed: false, scope: 'principal', rule: { points: 2, durationSeconds: 60 } });
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
    }
    expect(await probe.get(`${keyPrefix}rl:tool:t`)).toBe('2');
    expect(await limiter.consume('t', 'bob')).toEqual({ allowed: true });
    expect(await limiter.consume('t', 'carol')).toMatchObject({ allowed: false, scope: 'tool', rule: { points: 3, durationSeconds: 60 } });
    // The caller's point is spent even when the tool refuses, as before.
    expect(await probe.get(`${keyPrefix}rl:principal:p:carol`)).toBe('1');
    await connection.release();
  });

  it('share counts with RateLimiterRedis: points it took count against the one-command path and the other way round', async () => {
    const { limiter, keyPrefix, connection } = await limiterFor(3, 100);
    // rate-limiter-flexible's own RateLimiterRedis on the keys of the built-in store's 'principal' rule.
    const flexible = new RateLimiterRedis({ storeClient: connection.client, keyPrefix: `${keyPrefix}rl:principal`, points: 3, duration: 60 });
    await flexible.consume('p:alice', 2);
    expect(await limiter.consume('t', 'alice')).toEqual({ allowed: true });
    expect(await limiter.consume('t', 'alice')).toMatchObject({ allowed: false, scope: 'principal' });
    expect((await flexible.get('p:alice'))?.consumedPoints).toBe(4);
    expect(await probe.get(`${keyPrefix}rl:principal:p:alice`)).toBe('4');
    await connection.release();
  });

  it('refuse with an error, not a decision, while Redis is down (onFailure refuse)', async () => {
    const { limiter, connection } = await limiterFor(10, 10);
    expect(await limiter.consume('t', 'alice')).toEqual({ allowed: true });
    await redis.stop();
    try {
      await expect(limiter.consume('t', 'alice')).rejects.toThrow();
    } finally {
      await redis.start();
    }
    await connection.release();
  });

  it("count in each instance's memory while Redis is down under onFailure 'open', caller first, then the tool", async () => {
    const { limiter, connection } = await limiterFor(2, 3, 'open');
    await redis.stop();
    try {
      expect(await limiter.consume('t', 'alice')).toEqual({ allowed: true });
      expect(await limiter.consume('t', 'alice')).toEqual({ allowed: true });
      expect(await limiter.consume('t', 'alice')).toMatchObject({ allowed: false, scope: 'principal' });
      expect(await limiter.consume('t', 'bob')).toEqual({ allowed: true });
      expect(await limiter.consume('t', 'carol')).toMatchObject({ allowed: false, scope: 'tool' });
    } finally {
      await redis.start();
    }
    await connection.release();
  });
});
