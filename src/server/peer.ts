import type { RequestId } from '../jsonrpc/types.js';
import type { ClientCapabilities, Implementation, LogLevel } from '../protocol/meta.js';

/** What a legacy `initialize` handshake established for one stdio process or HTTP session. */
export interface LegacySession {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  initialized: boolean;
  /** Set by `logging/setLevel`. */
  logLevel?: LogLevel;
}

/**
 * One client connection as the dispatcher sees it: a stdio process, an
 * in-memory pair, or a legacy HTTP session (modern HTTP requests each get
 * their own short-lived peer).
 */
export class Peer {
  legacy?: LegacySession;
  /** Requests in flight, so `notifications/cancelled` can abort them. */
  readonly inflight = new Map<RequestId, AbortController>();

  constructor(readonly transport: 'stdio' | 'http' | 'memory') {}

  /** Aborts everything in flight: the connection is gone. */
  close(reason = 'connection closed'): void {
    for (const controller of this.inflight.values()) controller.abort(new Error(reason));
    this.inflight.clear();
  }
}

/** One inbound request: where it came from and how to talk back while it runs. */
export interface Exchange {
  readonly peer: Peer;
  /** Sends a request-scoped notification (progress, log) to the client. */
  notify(json: string): void;
  /** Aborted when the transport loses the client (an HTTP response stream closed). */
  readonly signal?: AbortSignal;
  /** HTTP request headers, lower-cased; absent on other transports. */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** The authenticated caller, when the transport knows it. */
  readonly principal?: string;
}

/** A serialized JSON-RPC response and the HTTP status it travels with. */
export interface Reply {
  json: string;
  status: number;
}
