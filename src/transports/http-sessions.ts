import { unrefTimer } from './timers.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import type { ServerConnection } from '../server/connection.js';
import type { ToolServer } from '../server/server.js';
import type { HttpResponse } from './http-response.js';
import { writeSseEvent } from './sse.js';
import type { SessionRecords } from '../state/sessions.js';
import type { EventBus } from '../state/bus.js';

/** A legacy (2025-11-25 and earlier) Streamable HTTP session: one server connection, its requests each on a POST of their own. */
export class HttpSession {
  /** Unguessable (session hijacking); assigned when `initialize` succeeded and the store adopted it. */
  id = '';
  readonly connection: ServerConnection;
  lastSeen = Date.now();
  /** The standalone GET stream for server-initiated messages, when open. */
  stream?: HttpResponse;

  /** `principal`: the key (callerKey) of the authenticated caller who opens it, if any; the session is theirs alone. */
  constructor(
    server: ToolServer,
    readonly principal: string | undefined,
    caller: string | AuthInfo | undefined,
  ) {
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
  /** Started with the first session: no timer runs for an endpoint nobody opens a session on (a Worker may not set one outside a request). */
  private sweeper?: ReturnType<typeof setInterval>;

  /**
   * `records`: shared session records (docs/deployment.md), so that another instance can serve
   * this one's sessions and this one theirs; their time to live is the idle timeout, restarted by
   * each use on any instance. `onRecordError` hears a record that could not be written or read.
   */
  constructor(
    private readonly idleMs: number,
    private readonly maxSessions: number,
    private readonly records?: SessionRecords,
    private readonly onRecordError: (err: unknown) => void = () => undefined,
    private readonly bus?: EventBus,
  ) {
    // With shared records, a client's answer to a server-to-client request may reach any instance.
    if (records && bus) {
      this.stopBus = bus.subscribe((event) => {
        if (event.type !== 'session-response' || this.relayed.has(event) || typeof event.sessionId !== 'string') return;
        const response = event.response;
        if (response && typeof response === 'object' && !Array.isArray(response) && 'id' in response)
          this.sessions.get(event.sessionId)?.connection.receive(response as never);
      });
    }
  }

  private startSweeping(): void {
    if (this.sweeper !== undefined) return;
    this.sweeper = setInterval(() => this.sweep(), Math.min(Math.max(this.idleMs / 4, 1_000), 60_000));
    unrefTimer(this.sweeper);
  }

  get full(): boolean {
    return this.sessions.size >= this.maxSessions;
  }

  /** Adopts a session whose `initialize` succeeded, giving it its id. */
  add(session: HttpSession): HttpSession {
    // Web Crypto: the same on every runtime (Node's global `crypto` is its webcrypto).
    session.id = crypto.randomUUID();
    session.lastSeen = Date.now();
    this.sessions.set(session.id, session);
    this.startSweeping();
    return session;
  }

  private stopBus?: () => void;
  private readonly relayed = new WeakSet<object>();

  /**
   * A client's response to a server-to-client request, POSTed here: handed on to the other
   * instances holding the session, for the one whose request it answers (docs/deployment.md).
   */
  relay(sessionId: string, response: Record<string, unknown>): void {
    if (!this.records || !this.bus) return;
    const event = { type: 'session-response' as const, sessionId, response };
    this.relayed.add(event);
    this.bus.publish(event).catch(this.onRecordError);
  }

  /**
   * Keeps the record of a session just adopted where the other instances read it; resolves once
   * written (the client's next request may reach another instance). A record that cannot be
   * written leaves the session served here only (said in the log).
   */
  async share(session: HttpSession): Promise<void> {
    const legacy = session.connection.legacySession;
    if (!this.records || !legacy) return;
    const { protocolVersion, clientCapabilities, clientInfo, logLevel } = legacy;
    try {
      await this.records.put(
        session.id,
        {
          protocolVersion,
          clientCapabilities,
          ...(clientInfo ? { clientInfo } : {}),
          ...(logLevel ? { logLevel } : {}),
          ...(session.principal !== undefined ? { owner: session.principal } : {}),
        },
        this.idleMs,
      );
    } catch (err) {
      this.onRecordError(err);
    }
  }

  /** Finds a live session here and marks it used. */
  touch(id: string): HttpSession | undefined {
    const session = this.sessions.get(id);
    if (session) session.lastSeen = Date.now();
    return session;
  }

  /**
   * The session `id` of the caller `principal`: live here, or resumed from the shared records
   * (another instance opened it); undefined when neither knows it for this caller.
   */
  async find(id: string, principal: string | undefined, open: () => HttpSession): Promise<HttpSession | undefined> {
    const here = this.touch(id);
    if (here && this.records) {
      // Ended (DELETE) or expired through another instance: this copy ends too. Redis away: the copy serves on.
      const kept = await this.records.touch(id, this.idleMs).catch((err) => (this.onRecordError(err), true));
      if (kept) return here;
      if (this.sessions.get(id) === here) this.forget(here);
      return undefined;
    }
    if (here || !this.records || this.full) return here;
    let record: Awaited<ReturnType<SessionRecords['get']>>;
    try {
      record = await this.records.get(id, this.idleMs);
    } catch (err) {
      this.onRecordError(err);
      return undefined;
    }
    // A session belongs to the caller who opened it; to anyone else it does not exist.
    if (!record || record.owner !== principal) return undefined;
    // Another request of the session may have resumed it while the record was read.
    const raced = this.touch(id);
    if (raced) return raced;
    const session = open();
    const { owner: _owner, ...legacy } = record;
    session.connection.resumeLegacy(legacy as Parameters<HttpSession['connection']['resumeLegacy']>[0]);
    session.id = id;
    session.lastSeen = Date.now();
    this.sessions.set(id, session);
    this.startSweeping();
    return session;
  }

  /**
   * Ends the session `id` (DELETE) for every instance; resolves once the shared record is gone,
   * so that the DELETE is answered only when no other instance serves the session any more. The
   * record goes first: meanwhile a request here still finds the copy and, its record gone, ends it.
   * A record that cannot be deleted (Redis away) is said in the log; it expires after the idle time.
   */
  async end(id: string): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session) return false;
    await this.records?.delete(id).catch(this.onRecordError);
    if (this.sessions.get(id) === session) this.forget(session);
    return true;
  }

  /** Drops this instance's copy of a session, leaving its shared record (another instance may serve it). */
  private forget(session: HttpSession): void {
    this.sessions.delete(session.id);
    session.connection.close('session ended');
    session.stream?.end();
  }

  /** This instance stops: its copies end; the shared records stay for the other instances. */
  close(): void {
    clearInterval(this.sweeper);
    this.stopBus?.();
    for (const session of [...this.sessions.values()]) this.forget(session);
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const s of [...this.sessions.values()]) {
      // A session with an open stream or a call in flight is in use, however quiet.
      // Only this instance's copy is dropped: the shared record expires on its own when no instance uses it.
      if (s.lastSeen < cutoff && !s.stream && s.connection.inFlight === 0) this.forget(s);
    }
  }
}
