import { parseSessionRecord, type SessionRecord, type SessionRecords } from '../sessions.js';
import type { RedisConnection } from './connection.js';

/**
 * Legacy session records in Redis (docs/deployment.md): `<prefix>session:<id>`, JSON, expiring
 * after the session's idle time, which each use starts again. Session ids are random UUIDs
 * (unguessable), and a record names its owner: an instance serves it only to that caller.
 */
export class RedisSessionRecords implements SessionRecords {
  constructor(private readonly connection: RedisConnection) {}

  private key(id: string): string {
    return this.connection.key(`session:${id}`);
  }

  async put(id: string, record: SessionRecord, ttlMs: number): Promise<void> {
    await this.connection.run((c) => c.set(this.key(id), JSON.stringify(record), 'PX', ttlMs));
  }

  async get(id: string, ttlMs: number): Promise<SessionRecord | undefined> {
    const replies = await this.connection.run((c) => c.multi().get(this.key(id)).pexpire(this.key(id), ttlMs).exec());
    const [err, text] = replies?.[0] ?? [null, null];
    if (err) throw err;
    return parseSessionRecord(text as string | null);
  }

  async touch(id: string, ttlMs: number): Promise<boolean> {
    return (await this.connection.run((c) => c.pexpire(this.key(id), ttlMs))) === 1;
  }

  async delete(id: string): Promise<void> {
    await this.connection.run((c) => c.del(this.key(id)));
  }

  async close(): Promise<void> {
    await this.connection.release();
  }
}
