import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long tool work may run before it lets the event loop take a turn. */
const DEFAULT_SLICE_MS = 8;

/**
 * Lets CPU-heavy tool work (walking a tree, scanning text, folding CSV
 * records) share the event loop: such work runs in a chain of microtasks,
 * which never lets the loop read another request, fire a timer or handle a
 * signal, however many `await`s it contains. The work asks `due()` as often
 * as it likes (it reads a clock, nothing more) and, when due, awaits
 * `pause()`, which waits one full turn of the loop (setImmediate: after
 * pending I/O) and then throws if the call was cancelled or timed out.
 */
export class TimeSlicer {
  private sliceStart = performance.now();

  constructor(
    private readonly signal: AbortSignal,
    private readonly sliceMs = DEFAULT_SLICE_MS,
  ) {}

  /** Whether the current slice is used up. */
  due(): boolean {
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  /** Gives the event loop a turn, then throws the signal's reason if the call was stopped meanwhile. */
  async pause(): Promise<void> {
    this.signal.throwIfAborted();
    await nextTurn();
    this.signal.throwIfAborted();
    this.sliceStart = performance.now();
  }

  /** `pause()` when due; otherwise only the (cheap) cancellation check. */
  async tick(): Promise<void> {
    if (this.due()) await this.pause();
    else this.signal.throwIfAborted();
  }
}
