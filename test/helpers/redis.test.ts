import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { REDIS_SERVER, TestRedis } from './redis.js';

describe.skipIf(!REDIS_SERVER)('the test Redis server', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await TestRedis.create();
  });
  afterAll(async () => {
    await redis?.destroy();
  });

  it('answers on its own port, loses its data when it crashes, and comes back on the same port', async () => {
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.set('k', 'v');
      expect(await client.get('k')).toBe('v');
      await redis.stop();
      await expect(client.get('k')).rejects.toThrow();
      await redis.start();
      await client.ping();
      expect(await client.get('k')).toBeNull();
    } finally {
      client.disconnect();
    }
  });
});
