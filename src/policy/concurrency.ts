/**
 * A cap on calls in flight with a bounded wait queue: beyond both, a call is
 * refused at once instead of piling up (memory stays bounded under load).
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly maxInFlight: number,
    readonly maxQueued: number,
  ) {
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1) throw new RangeError('maxInFlight must be a positive integer');
    if (!Number.isInteger(maxQueued) || maxQueued < 0) throw new RangeError('maxQueued must be a non-negative integer');
  }

  /** A release function when a slot is free right now (the common case, with no promise). */
  tryAcquire(): (() => void) | undefined {
    if (this.running >= this.maxInFlight) return undefined;
    this.running++;
    return this.releaser();
  }

  /** Resolves with a release function, or with undefined when the server is full. */
  acquire(signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (this.running < this.maxInFlight) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.maxQueued) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.running++;
        resolve(this.releaser());
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(grant);
        if (i !== -1) this.waiting.splice(i, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.waiting.shift()?.();
    };
  }
}
