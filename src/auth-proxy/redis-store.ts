import { redisConnection, type RedisConnection } from '../state/redis/connection.js';
import type { AuthProxyStore } from './store.js';

/**
 * The facade's state in the Redis every instance shares (server.state.redis): a client
 * registered on one instance, a consent page shown by another and the provider's callback
 * reaching a third all find the same records. Keys go under `<prefix>auth-proxy:`; `take` is
 * GETDEL (Redis 6.2), one command, so a code is redeemed once however the requests race.
 */
export class RedisAuthProxyStore implements AuthProxyStore {
  private readonly redis: RedisConnection;

  constructor(url: string, keyPrefix?: string) {
    this.redis = redisConnection(url, keyPrefix === undefined ? {} : { keyPrefix });
  }

  private key(name: string): string {
    return this.redis.key(`auth-proxy:${name}`);
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    await this.redis.run((c) => c.set(this.key(key), value, 'PX', Math.max(1, Math.ceil(ttlMs))));
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.redis.run((c) => c.get(this.key(key)))) ?? undefined;
  }

  async take(key: string): Promise<string | undefined> {
    return (await this.redis.run((c) => c.getdel(this.key(key)))) ?? undefined;
  }

  async delete(key: string): Promise<void> {
    await this.redis.run((c) => c.del(this.key(key)));
  }

  close(): Promise<void> {
    return this.redis.release();
  }
}
