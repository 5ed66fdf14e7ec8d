import { redisConnection, type RedisConnection } from '../state/redis/connection.js';
import type { AuthProxyStore } from './store.js';

/**
 * Compare-and-set in one script (Redis runs a script with nothing in between): KEYS[1] is
 * written only when it is absent (ARGV[1] = '1') or holds ARGV[2]. Returns 1 when written.
 */
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current then return 0 end
elseif current ~= ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
return 1`;

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

  async compareAndSet(key: string, expected: string | undefined, value: string, ttlMs: number): Promise<boolean> {
    const ttl = String(Math.max(1, Math.ceil(ttlMs)));
    const absent = expected === undefined ? '1' : '0';
    return (await this.redis.run((c) => c.eval(COMPARE_AND_SET, 1, this.key(key), absent, expected ?? '', value, ttl))) === 1;
  }

  close(): Promise<void> {
    return this.redis.release();
  }
}
