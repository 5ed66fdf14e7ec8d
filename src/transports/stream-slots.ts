/** Why a stream was refused: the server's slots are all taken, or this caller's share is. */
export type StreamRefusal = 'server' | 'caller';

/**
 * Slots for long-lived streams (`subscriptions/listen`, legacy GET): each
 * holds a socket and a descriptor for as long as the client likes, so they
 * are capped in all and per caller.
 */
export class StreamSlots {
  private open = 0;
  private readonly perCaller = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly maxPerCaller: number,
  ) {}

  /** Takes a slot for `caller`; returns its release (safe to call more than once), or why not. */
  take(caller: string): (() => void) | StreamRefusal {
    const mine = this.perCaller.get(caller) ?? 0;
    if (mine >= this.maxPerCaller) return 'caller';
    if (this.open >= this.max) return 'server';
    this.open++;
    this.perCaller.set(caller, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      const left = (this.perCaller.get(caller) ?? 1) - 1;
      if (left === 0) this.perCaller.delete(caller);
      else this.perCaller.set(caller, left);
    };
  }

  get size(): number {
    return this.open;
  }
}
