import { untilAborted } from '../deadline.js';

interface Flight {
  done: Promise<void>;
  /** Aborted when every caller has given up: the work's requests stop. */
  stop: AbortController;
  waiting: number;
}

/**
 * One piece of work at a time that concurrent callers share (an authorization, a refresh):
 * the first caller starts it, the others wait for the same one. Each caller's own signal ends
 * only its own wait; once every caller has given up, the work is stopped too (`stop` aborts
 * its requests), unless `mayStop` says no (a person is signing in): a client that closed after
 * its connect timed out must not wait on a hung authorization server for another 15 s (issue 21).
 */
export class SharedWork {
  private flight?: Flight;

  constructor(private readonly mayStop: () => boolean) {}

  /** The work in progress, for a caller that only waits for it to be over. */
  get pending(): Promise<void> | undefined {
    return this.flight?.done;
  }

  async run(work: (stop: AbortSignal) => Promise<void>, signal: AbortSignal | undefined): Promise<void> {
    let flight = this.flight;
    if (!flight) {
      const started: Flight = { stop: new AbortController(), waiting: 0, done: Promise.resolve() };
      started.done = work(started.stop.signal).finally(() => {
        if (this.flight === started) this.flight = undefined;
      });
      started.done.catch(() => {});
      this.flight = flight = started;
    }
    flight.waiting++;
    try {
      await (signal ? untilAborted(flight.done, signal) : flight.done);
    } finally {
      flight.waiting--;
      // A caller without a signal never gives up, so the work is stopped only when the last one did.
      if (flight.waiting === 0 && signal?.aborted && !flight.stop.signal.aborted && this.mayStop()) {
        if (this.flight === flight) this.flight = undefined;
        flight.stop.abort(signal.reason);
      }
    }
  }
}
