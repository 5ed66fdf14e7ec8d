import { emptyResult, pruneSteps, type PruneResult, type ResolvedRetention } from './retention.js';
import type { Database } from './sqlite-schema.js';

/** The first pass runs this soon after the database opens (or after the interval, if shorter). */
const FIRST_PASS_DELAY_MS = 5_000;

/**
 * Applies a retention policy to an open audit database in the background: a pass every
 * `intervalMs` (the first one shortly after opening), each pass one small step per turn of
 * the event loop (`setImmediate`), so calls and their audit inserts run between steps. Its
 * timers are unref'd: it never keeps a process alive. It runs on the sink's own connection,
 * so its statements and the inserts never wait for each other's locks.
 */
export class BackgroundPruner {
  private timer?: NodeJS.Timeout;
  private pass?: { done: Promise<PruneResult>; stop: () => void };
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly policy: ResolvedRetention,
    private readonly onError: (err: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.schedule(Math.min(FIRST_PASS_DELAY_MS, this.policy.intervalMs));
  }

  /** Runs a pass now (or joins the one running) and resolves with what it removed. */
  runPass(): Promise<PruneResult> {
    if (this.pass) return this.pass.done;
    let stop = () => {};
    const done = new Promise<PruneResult>((resolve, reject) => {
      const now = this.now();
      const result = emptyResult();
      const steps = pruneSteps(
        this.db,
        {
          ...(this.policy.maxAgeMs === undefined ? {} : { olderThan: new Date(now - this.policy.maxAgeMs) }),
          ...(this.policy.maxBytes === undefined ? {} : { maxBytes: this.policy.maxBytes }),
        },
        result,
      );
      let immediate: NodeJS.Immediate | undefined;
      const finish = (settle: () => void) => {
        this.pass = undefined;
        settle();
        if (!this.stopped) this.schedule(this.policy.intervalMs);
      };
      const step = () => {
        immediate = undefined;
        try {
          const next = steps.next();
          if (next.done) return finish(() => resolve(next.value));
        } catch (err) {
          return finish(() => reject(err));
        }
        immediate = setImmediate(step).unref();
      };
      stop = () => {
        if (immediate) clearImmediate(immediate);
        steps.return(result);
        this.pass = undefined;
        resolve(result);
      };
      // The first step runs in a turn of its own too: never inside the caller's (a call's) turn.
      immediate = setImmediate(step).unref();
    });
    this.pass = { done, stop };
    return done;
  }

  /** Stops the timer and any pass under way (what it already deleted stays deleted). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pass?.stop();
  }

  private schedule(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.runPass().catch((err: unknown) => this.onError(err));
    }, delayMs).unref();
  }
}
