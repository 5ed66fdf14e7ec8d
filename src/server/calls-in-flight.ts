/** The abort reason of a call stopped because the server shuts down: it is answered, unlike a call its client cancelled. */
export class ServerShutdown extends Error {
  constructor() {
    super('the server is shutting down');
    this.name = 'ServerShutdown';
  }
}

interface Stoppable {
  abort(reason?: unknown): void;
}

/**
 * Every `tools/call` in flight on a server, whatever its transport, so a
 * graceful shutdown can wait for them, and stop those that outlive the grace.
 * An array with swap-remove rather than a Set, for the reason InflightRequests
 * gives (a collection churned by every call keeps retired tables alive); the
 * count is bounded by the concurrency cap, its queue and approvals waiting.
 */
export class CallsInFlight {
  private readonly calls: Stoppable[] = [];
  private readonly idleWaiters: Array<() => void> = [];
  /** Set once shutdown starts: new calls are refused from then on. */
  closed = false;

  get size(): number {
    return this.calls.length;
  }

  add(call: Stoppable): void {
    this.calls.push(call);
  }

  remove(call: Stoppable): void {
    const i = this.calls.lastIndexOf(call);
    if (i === -1) return;
    const last = this.calls.length - 1;
    if (i !== last) this.calls[i] = this.calls[last];
    this.calls.pop();
    if (last === 0 && this.idleWaiters.length) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Resolves true once no call is in flight, or false after `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.calls.length === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const i = this.idleWaiters.indexOf(done);
        if (i !== -1) this.idleWaiters.splice(i, 1);
        resolve(false);
      }, timeoutMs);
      this.idleWaiters.push(done);
    });
  }

  /** Aborts every call in flight; each stays counted until it has settled (answered). */
  abortAll(reason: unknown): void {
    for (const call of [...this.calls]) call.abort(reason);
  }
}
