import { nodeCrypto } from '../lazy-crypto.js';
import { Peer } from '../server/peer.js';
import type { HttpResponse } from './http-response.js';

/** A legacy (2025-11-25 and earlier) Streamable HTTP session. */
export interface HttpSession {
  readonly id: string;
  readonly peer: Peer;
  /** The authenticated caller who opened it, if any. */
  readonly principal?: string;
  lastSeen: number;
  /** The standalone GET stream for server-initiated messages, when open. */
  stream?: HttpResponse;
}

/**
 * Legacy sessions with an idle timeout and a cap, so that abandoned or
 * hostile clients cannot grow the server without bound.
 */
export class SessionStore {
  private readonly sessions = new Map<string, HttpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly idleMs: number, private readonly maxSessions: number) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(Math.max(idleMs / 4, 1_000), 60_000));
    this.sweeper.unref();
  }

  get full(): boolean {
    return this.sessions.size >= this.maxSessions;
  }

  /** Adopts a peer whose `initialize` succeeded; the id is unguessable (session hijacking). */
  add(peer: Peer, principal?: string): HttpSession {
    const session: HttpSession = { id: nodeCrypto().randomUUID(), peer, principal, lastSeen: Date.now() };
    this.sessions.set(session.id, session);
    return session;
  }

  /** Finds a live session and marks it used. */
  touch(id: string): HttpSession | undefined {
    const session = this.sessions.get(id);
    if (session) session.lastSeen = Date.now();
    return session;
  }

  end(id: string): boolean {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    session.peer.close('session ended');
    session.stream?.end();
    return true;
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.end(id);
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const s of [...this.sessions.values()]) {
      // A session with an open stream or a call in flight is in use, however quiet.
      if (s.lastSeen < cutoff && !s.stream && s.peer.inflight.size === 0) this.end(s.id);
    }
  }
}
