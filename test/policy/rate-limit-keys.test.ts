import { describe, expect, it } from 'vitest';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { RateLimiter } from '../../src/policy/rate-limit.js';

describe('per-caller rate-limit keys', () => {
  it('keep the shared-store key layout: one "principal" limiter, "p:<id>" per caller and one "anonymous" bucket', async () => {
    const made: { prefix: string; store: RateLimiterMemory }[] = [];
    const limiter = new RateLimiter({
      perPrincipal: { points: 1, durationSeconds: 60 },
      createLimiter: (rule, keyPrefix) => {
        const store = new RateLimiterMemory({ points: rule.points, duration: rule.durationSeconds, keyPrefix });
        made.push({ prefix: keyPrefix, store });
        return store;
      },
    });
    expect(await limiter.consume('t', undefined)).toEqual({ allowed: true });
    expect(await limiter.consume('t', 'anonymous')).toEqual({ allowed: true });
    expect(await limiter.consume('t', 'alice')).toEqual({ allowed: true });
    expect(made.map((m) => m.prefix)).toEqual(['principal']);
    const store = made[0]!.store;
    expect((await store.get('anonymous'))?.consumedPoints).toBe(1);
    expect((await store.get('p:anonymous'))?.consumedPoints).toBe(1);
    expect((await store.get('p:alice'))?.consumedPoints).toBe(1);
    expect((await limiter.consume('t', 'alice')) as { allowed: boolean }).toMatchObject({ allowed: false, scope: 'principal' });
  });

  it("keep the in-process store's callers apart from the anonymous bucket, and callers apart from each other", () => {
    const limiter = new RateLimiter({ perPrincipal: { points: 1, durationSeconds: 60 } });
    expect(limiter.consume('t', undefined)).toEqual({ allowed: true });
    expect(limiter.consume('t', 'anonymous')).toEqual({ allowed: true });
    expect(limiter.consume('t', '')).toEqual({ allowed: true });
    expect(limiter.consume('t', 'p:x')).toEqual({ allowed: true });
    expect(limiter.consume('t', undefined)).toMatchObject({ allowed: false, scope: 'principal' });
    expect(limiter.consume('t', '')).toMatchObject({ allowed: false, scope: 'principal' });
  });

  it('with a shared store, ask the tool in the same breath but give its point back when the caller is over its own limit', async () => {
    const stores = new Map<string, RateLimiterMemory>();
    const limiter = new RateLimiter({
      perPrincipal: { points: 1, durationSeconds: 60 },
      perTool: { points: 2, durationSeconds: 60 },
      createLimiter: (rule, keyPrefix) => {
        const store = new RateLimiterMemory({ points: rule.points, duration: rule.durationSeconds, keyPrefix });
        stores.set(keyPrefix, store);
        return store;
      },
    });
    expect(await limiter.consume('t', 'alice')).toEqual({ allowed: true });
    for (let i = 0; i < 5; i++) expect(await limiter.consume('t', 'alice')).toMatchObject({ allowed: false, scope: 'principal' });
    // The refunds are fire-and-forget: wait for the tool's count to settle back to alice's one call.
    await expect.poll(async () => (await stores.get('tool')!.get('t'))?.consumedPoints).toBe(1);
    expect(await limiter.consume('t', 'bob')).toEqual({ allowed: true });
    expect(await limiter.consume('t', 'carol')).toMatchObject({ allowed: false, scope: 'tool' });
  });
});
