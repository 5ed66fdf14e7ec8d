import type { RateLimitStore, RateLimitWindow } from './rate-limit-store.js';

interface Window {
  used: number;
  endsAt: number;
}

/** Past this many keys, windows that have ended are swept out (at most once per window length). */
const SWEEP_AT_KEYS = 1024;

/**
 * The default rate-limit store (a RateLimitStore): per key, `points` calls per window of
 * `durationMs`, the window starting with the key's first call (the same
 * semantics as rate-limiter-flexible's memory store, so a rule means the same
 * whichever store serves it). Synchronous: a decision costs a Map lookup, no
 * promise. Keys are tool names and callers; entries are updated in place, and
 * ended windows are swept once the map grows, so memory stays bounded by the
 * keys active in one window. Time is monotonic (a clock set back cannot
 * extend a window).
 */
export class FixedWindows implements RateLimitStore {
  private readonly windows = new Map<string, Window>();
  private nextSweep = 0;

  constructor(
    private readonly points: number,
    private readonly durationMs: number,
  ) {}

  /** Takes a point: undefined when taken, else the ms until the key's window ends. */
  take(key: string): number | undefined {
    const now = performance.now();
    const window = this.windows.get(key);
    if (window === undefined) {
      if (this.windows.size >= SWEEP_AT_KEYS && now >= this.nextSweep) this.sweep(now);
      this.windows.set(key, { used: 1, endsAt: now + this.durationMs });
      return undefined;
    }
    if (now >= window.endsAt) {
      window.used = 1;
      window.endsAt = now + this.durationMs;
      return undefined;
    }
    if (window.used < this.points) {
      window.used++;
      return undefined;
    }
    return Math.ceil(window.endsAt - now);
  }

  /** A key's window as it stands (no point taken): undefined when it has none or it ended. */
  peek(key: string): RateLimitWindow | undefined {
    const now = performance.now();
    const window = this.windows.get(key);
    if (window === undefined || now >= window.endsAt) return undefined;
    return { used: window.used, resetsInMs: Math.ceil(window.endsAt - now) };
  }

  /** The live windows (ended ones left out), for the operator's view; reads only. */
  *live(): Generator<RateLimitWindow & { key: string }> {
    const now = performance.now();
    for (const [key, window] of this.windows) if (now < window.endsAt) yield { key, used: window.used, resetsInMs: Math.ceil(window.endsAt - now) };
  }

  private sweep(now: number): void {
    this.nextSweep = now + this.durationMs;
    for (const [key, window] of this.windows) if (now >= window.endsAt) this.windows.delete(key);
  }
}
