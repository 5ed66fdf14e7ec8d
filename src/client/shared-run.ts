import { waitWithin } from './deadline.js';

/**
 * One run of some work that concurrent callers share, each waiting with its
 * own AbortSignal: a caller who aborts stops waiting (CancelledError) without
 * failing the others, and the work is stopped only once nobody waits for it.
 */
export class SharedRun<T> {
  readonly result: Promise<T>;
  private readonly stop = new AbortController();
  private waiting = 0;

  constructor(
    private readonly method: string,
    work: (signal: AbortSignal) => Promise<T>,
  ) {
    this.result = work(this.stop.signal);
    // Every caller may have given up before it fails: that is nobody's unhandled rejection.
    this.result.catch(() => {});
  }

  /** A stopped run is ending with a CancelledError; a new caller must start a new one instead of joining it. */
  get stopped(): boolean {
    return this.stop.signal.aborted;
  }

  async join(signal?: AbortSignal): Promise<T> {
    this.waiting++;
    try {
      return await waitWithin(this.method, { signal }, this.result);
    } finally {
      // The last caller gave up: nobody wants the result any more, so stop asking the server for it.
      if (--this.waiting === 0 && signal?.aborted) this.stop.abort(signal.reason);
    }
  }
}
