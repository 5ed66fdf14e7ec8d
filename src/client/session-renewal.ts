import { waitWithin, type Budget } from './deadline.js';
import { ConnectionError } from './errors.js';
import { handshake, type ServerIdentity } from './handshake.js';
import type { ClientSession, RequestOptions } from './session.js';

/**
 * A legacy HTTP session the server ended, re-established once for every request that finds it
 * gone (2025-11-25 "Session Management"): they all join the same handshake, and one answered
 * late, after a new session was made, just goes again in the new one.
 */
export class SessionRenewal {
  /** The legacy session being re-established, while it is. */
  private renewal?: Promise<void>;
  /** How many legacy sessions have been re-established: tells a late 404 from a current one. */
  private renewals = 0;

  constructor(
    /** Told of the new session's identity (the client keeps it and subscribes to its resources again). */
    private readonly onRenewed: (identity: ServerIdentity, session: ClientSession) => void,
    private readonly defaultTimeoutMs: number,
  ) {}

  /** One request in `session`, waiting for a renewal under way and renewing the session if the server ended it. */
  async send(session: ClientSession, method: string, params: Record<string, unknown>, options: RequestOptions): Promise<Record<string, unknown>> {
    // Sent now, the request would go out without a session: wait for the new one.
    if (this.renewal) await this.waitFor(this.renewal, method, options);
    const sentIn = this.renewals;
    try {
      return await session.request(method, params, options);
    } catch (err) {
      if (!(err instanceof ConnectionError) || err.reason !== 'session-expired') throw err;
      if (this.renewals === sentIn) this.renewal ??= this.renew(session);
      if (this.renewal) await this.waitFor(this.renewal, method, options);
      return session.request(method, params, options);
    }
  }

  /** A new legacy session; it runs under no caller's signal, so one who gives up cannot take it from the others. */
  private renew(session: ClientSession): Promise<void> {
    this.renewals++;
    const renewal = handshake(session, { preference: 'legacy', probeTimeoutMs: 0 })
      .then((identity) => this.onRenewed(identity, session))
      .finally(() => (this.renewal = undefined));
    // Every waiter may have given up before it fails: that is nobody's unhandled rejection.
    renewal.catch(() => {});
    return renewal;
  }

  /** Waits for the new session within the caller's own budget: its abort or deadline ends its wait, not the handshake. */
  private waitFor(renewal: Promise<void>, method: string, options: RequestOptions): Promise<void> {
    const { signal, deadline } = options;
    // A call's deadline covers this wait as it covers the call's requests; a listing page has only its signal.
    const budget: Budget = deadline === undefined ? { signal } : { signal, deadline, timeoutMs: options.timeoutMs ?? this.defaultTimeoutMs };
    return waitWithin(method, budget, renewal);
  }
}
