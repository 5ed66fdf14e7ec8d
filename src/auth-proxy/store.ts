/**
 * What the facade keeps between requests: registered clients, pending authorizations, codes,
 * consents, grants (with the provider's tokens, sealed), refresh tokens, its signing key. One
 * small interface with a memory default, a SQLite file (one instance) and Redis (several
 * instances behind one address: docs/scale-out.md), so nothing else imports a database client.
 *
 * Values are JSON text; every entry has a lifetime. `take` reads and deletes in one step: it is
 * what makes authorization codes, pending authorizations and refresh tokens single-use even
 * when two requests race (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3).
 */
export interface AuthProxyStore {
  /** Stores `value` under `key` for `ttlMs` (replacing what was there). */
  put(key: string, value: string, ttlMs: number): Promise<void>;
  /** The live value, or undefined. */
  get(key: string): Promise<string | undefined>;
  /** The live value, deleted in the same step; undefined when absent, expired or already taken. */
  take(key: string): Promise<string | undefined>;
  delete(key: string): Promise<void>;
  /**
   * Writes `value` under `key` only if the live value is still `expected` (undefined: absent or
   * expired), checked and written in one atomic step; true when written. What makes instances
   * sharing a store agree on one signing key set when they create or rotate it at the same
   * moment. A store without it gets plain `put` there (the last write wins: fine for one instance).
   */
  compareAndSet?(key: string, expected: string | undefined, value: string, ttlMs: number): Promise<boolean>;
  /**
   * The live value read synchronously, for stores held in this process (memory, SQLite): what
   * lets the resource server check a grant on every request without an await. A store over the
   * network (Redis) leaves it out and is asked with `get`.
   */
  getNow?(key: string): string | undefined;
  close?(): Promise<void> | void;
}

interface Entry {
  value: string;
  expiresAt: number;
}

/** Sweep expired entries once the map passes this size (at most once a minute). */
const SWEEP_AT = 4096;

/** The in-process default: enough for one instance; everything is lost on restart (clients then register again). */
export class MemoryAuthProxyStore implements AuthProxyStore {
  private readonly entries = new Map<string, Entry>();
  private nextSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    const now = this.now();
    if (this.entries.size >= SWEEP_AT && now >= this.nextSweep) this.sweep(now);
    this.entries.set(key, { value, expiresAt: now + ttlMs });
  }

  async get(key: string): Promise<string | undefined> {
    return this.getNow(key);
  }

  getNow(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  async take(key: string): Promise<string | undefined> {
    // Read and delete in one synchronous step: no other take can run between them.
    const entry = this.entries.get(key);
    this.entries.delete(key);
    return entry && entry.expiresAt > this.now() ? entry.value : undefined;
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async compareAndSet(key: string, expected: string | undefined, value: string, ttlMs: number): Promise<boolean> {
    // Synchronous from the read to the write: nothing else runs between them.
    if (this.getNow(key) !== expected) return false;
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    return true;
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    this.nextSweep = now + 60_000;
  }
}
