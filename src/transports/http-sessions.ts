import { nodeCrypto } from '../lazy-crypto.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import type { ServerConnection } from '../server/connection.js';
import type { ToolServer } from '../server/server.js';
import type { HttpResponse } from './http-response.js';
import { writeSseEvent } from './sse.js';

/** A legacy (2025-11-25 and earlier) Streamable HTTP session: one server connection, its requests each on a POST of their own. */
export class HttpSession {
  /** Unguessable (session hijacking); assigned when `initialize` succeeded and the store adopted it. */
  id = '';
  readonly connection: ServerConnection;
  lastSeen = Date.now();
  /** The standalone GET stream for server-initiated messages, when open. */
  stream?: HttpResponse;

  /** `principal`: the key (callerKey) of the authenticated caller who opens it, if any; the session is theirs alone. */
  constructor(server: ToolServer, readonly principal: string | undefined, caller: string | AuthInfo | undefined) {
    // What the server sends on its own (list changes, task status) goes on the GET stream while one is open.
    this.connection = server.connect({
      transport: 'http',
      caller,
      send: (json) => {
        const stream = this.stream;
        if (stream) writeSseEvent(stream, json);
      },
    });
  }
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

  /** Adopts a session whose `initialize` succeeded, giving it its id. */
  add(session: HttpSession): HttpSession {
    session.id = nodeCrypto().randomUUID();
    session.lastSeen = Date.now();
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
    session.connection.close('session ended');
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
      if (s.lastSeen < cutoff && !s.stream && s.connection.inFlight === 0) this.end(s.id);
    }
  }
}
