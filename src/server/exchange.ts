import { ANONYMOUS_CALLER, callerFrom, callerKey, type Caller } from '../policy/auth/caller.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import type { LegacySession } from './legacy-session.js';
import type { Peer } from './peer.js';

export type { LegacySession };

/** One inbound request: where it came from and how to talk back while it runs. */
export interface Exchange {
  /** @internal the connection it arrived on */
  readonly peer: Peer;
  /** Sends a request-scoped notification (progress, log) to the client. */
  notify(json: string): void;
  /**
   * When present, a call's progress and log notifications come here as
   * objects instead of `notify`'s text (a task turns progress into its
   * status message without parsing it back).
   */
  notifyObject?(method: string, params: Record<string, unknown>): void;
  /**
   * Calls `listener` when the transport loses the client (an HTTP response
   * stream closed before the answer); returns the unsubscribe. A callback
   * rather than an AbortSignal: most requests never need one, and signals cost.
   */
  onClose?(listener: (reason: Error) => void): () => void;
  /** HTTP request headers, lower-cased; absent on other transports. */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** The peer's network address and port, when the transport knows them (HTTP). */
  readonly remoteAddress?: string;
  readonly remotePort?: number;
  /**
   * Who is calling (ANONYMOUS_CALLER when nobody authenticated the request).
   * Every connection sets it; read it through `callerOf(exchange)`, which
   * also serves an exchange built by hand without one.
   */
  readonly caller?: Caller;
  /** @deprecated `caller.id` (undefined for the anonymous caller): derived from `caller` by the connection. */
  readonly principal?: string;
  /** @deprecated `caller`, when the transport gave an object rather than a bare id: derived from `caller` by the connection. */
  readonly auth?: AuthInfo;
  /** Size of the whole message, when the transport knows it (bounds the arguments). */
  readonly messageBytes?: number;
}

/**
 * The answer to one request: a serialized JSON-RPC response and the HTTP
 * status it travels with (200, or its error's: 400 for a malformed request,
 * 404 for an unknown method, 403 for missing scopes, 429 when refused for
 * load, 500 for an internal error). A transport without statuses sends `json`.
 */
export interface Reply {
  /** The JSON-RPC response, serialized once. */
  json: string;
  status: number;
  /** Seconds to wait before retrying (a rate-limited call); HTTP sends it as Retry-After. */
  retryAfterSeconds?: number;
  /** A 403 for a token without the scopes a call needs: all of them, for the transport's challenge. */
  requiredScopes?: readonly string[];
}

/**
 * The caller of an exchange: its `caller`, or, for one built by hand without
 * it (a custom transport or a test written before `caller` existed), what its
 * `auth` and `principal` say. The one place inside src/ that reads those two
 * deprecated fields; everything else reads the caller through this.
 */
export function callerOf(exchange: Exchange): Caller {
  return exchange.caller ?? exchange.auth ?? (exchange.principal ? callerFrom(exchange.principal) : ANONYMOUS_CALLER);
}

/** The key this exchange's per-caller state lives under: `callerKey(callerOf(exchange))`. */
export function callerKeyOf(exchange: Exchange): string {
  return callerKey(callerOf(exchange));
}
