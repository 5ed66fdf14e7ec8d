import type { ServerOptions } from 'node:http';

/**
 * How much of the HTTP server one client may hold, and for how long. Node's
 * own defaults (60 s for headers, 300 s for a request, no cap on
 * connections) let a handful of slow or greedy clients hold every socket.
 * Each limit answers or closes cleanly: 408 for a deadline, 503 (server-wide)
 * or 429 (one caller's share) with Retry-After for a cap.
 */
export interface HttpLimitOptions extends HttpSocketLimitOptions, HttpRequestLimitOptions {}

/** The limits of the listening server (serveHttp): a host app that mounts the handler provides its own. */
export interface HttpSocketLimitOptions {
  /** Time to receive a request's headers, counted from the connection or the previous request (default 10 s); then 408 and close. */
  headersTimeoutMs?: number;
  /**
   * Time to receive a whole request, body included (default 30 s); then 408
   * and close. Only receiving is timed: answers that stream (subscriptions,
   * long calls) are not cut by it.
   */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this long (default 5 s). */
  keepAliveTimeoutMs?: number;
  /** Open connections at most (default 1,024); one more is answered 503 and closed. */
  maxConnections?: number;
  /** Open connections from one client address, an IPv6 /64 counting as one (default 128); one more is answered 503 and closed. */
  maxConnectionsPerAddress?: number;
}

/** The limits the MCP handler enforces per request, mounted or served. */
export interface HttpRequestLimitOptions {
  /** Long-lived streams open at once, `subscriptions/listen` and legacy GET together (default 256); one more gets 503. */
  maxStreams?: number;
  /** Long-lived streams of one caller: an authenticated principal, or else a client address (default 32); one more gets 429. */
  maxStreamsPerPrincipal?: number;
  /**
   * Failed authentications allowed per client address in a window (default
   * 20 per 60 s). Past it, every request from that address is answered 429
   * with Retry-After, before credentials are looked at, until the window
   * ends. Successful ones are never counted. false: no throttle.
   */
  authFailureLimit?: AuthFailureLimit | false;
  /**
   * The client address is the last X-Forwarded-For entry (the one the nearest
   * proxy appended) instead of the socket's. Only behind a proxy that sets it:
   * otherwise any client could pick its own address. Connection caps always
   * count sockets, which a proxy's clients share.
   */
  trustProxy?: boolean;
}

export interface AuthFailureLimit {
  points: number;
  durationSeconds: number;
}

type ResolvedHttpLimits = Required<Omit<HttpLimitOptions, 'authFailureLimit'>> & { authFailureLimit: AuthFailureLimit | false };

export const DEFAULT_HTTP_LIMITS: ResolvedHttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_024,
  maxConnectionsPerAddress: 128,
  maxStreams: 256,
  maxStreamsPerPrincipal: 32,
  authFailureLimit: { points: 20, durationSeconds: 60 },
  trustProxy: false,
};

/** The limits with defaults filled in; throws RangeError naming a bad option. */
export function resolveHttpLimits(options: HttpLimitOptions): ResolvedHttpLimits {
  const out = { ...DEFAULT_HTTP_LIMITS };
  const positive = ['requestTimeoutMs', 'keepAliveTimeoutMs', 'maxConnections', 'maxConnectionsPerAddress', 'maxStreams', 'maxStreamsPerPrincipal'] as const;
  for (const key of positive) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`HTTP option "${key}" must be a positive integer, got ${String(value)}`);
    out[key] = value;
  }
  // Node refuses a header deadline past the request deadline; a shorter request deadline shortens the default.
  const headers = options.headersTimeoutMs ?? Math.min(DEFAULT_HTTP_LIMITS.headersTimeoutMs, out.requestTimeoutMs);
  if (!Number.isInteger(headers) || headers < 1) throw new RangeError(`HTTP option "headersTimeoutMs" must be a positive integer, got ${String(headers)}`);
  if (headers > out.requestTimeoutMs)
    throw new RangeError(`HTTP option "headersTimeoutMs" (${headers}) must not exceed "requestTimeoutMs" (${out.requestTimeoutMs})`);
  out.headersTimeoutMs = headers;
  const auth = options.authFailureLimit;
  if (auth !== undefined) {
    if (auth !== false && !(Number.isInteger(auth.points) && auth.points > 0 && auth.durationSeconds > 0)) {
      throw new RangeError('HTTP option "authFailureLimit" needs a positive integer "points" and a positive "durationSeconds", or false');
    }
    out.authFailureLimit = auth;
  }
  if (options.trustProxy !== undefined) out.trustProxy = options.trustProxy === true;
  return out;
}

/** node:http server options that enforce the deadlines. */
export function nodeServerOptions(limits: ResolvedHttpLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // How often deadlines are checked: Node's default (30 s) would let a 10 s deadline run to 40 s.
    connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}
