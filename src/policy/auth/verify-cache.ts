import type { AuthInfo } from './principal.js';

interface Entry {
  info: AuthInfo;
  /** Milliseconds since the epoch after which the entry is never used. */
  usableUntil: number;
}

/**
 * Verified credentials by the SHA-256 of the token (the token itself is
 * never kept). An entry is used only while the credential is still valid: a
 * hit re-checks the expiry, so caching never stretches a token's life. Bounded:
 * the oldest entry goes when full.
 */
export class VerificationCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(digest: string): AuthInfo | undefined {
    const entry = this.entries.get(digest);
    if (!entry) return undefined;
    if (this.now() >= entry.usableUntil) {
      this.entries.delete(digest);
      return undefined;
    }
    return entry.info;
  }

  /**
   * Keeps `info` for at most `maxAgeMs`, and never past `validUntilMs` (the
   * token's own expiry, skew included). Nothing is kept without an expiry
   * bound when `maxAgeMs` is 0.
   */
  set(digest: string, info: AuthInfo, validUntilMs: number, maxAgeMs: number): void {
    if (maxAgeMs <= 0) return;
    const usableUntil = Math.min(validUntilMs, this.now() + maxAgeMs);
    if (usableUntil <= this.now()) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(digest, { info, usableUntil });
  }

  clear(): void {
    this.entries.clear();
  }
}
