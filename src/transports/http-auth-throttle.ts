import type { EndpointRequest } from './http-request.js';
import { FixedWindows } from '../policy/fixed-windows.js';
import { type CreateLimiter, storesFrom } from '../policy/flexible-store.js';
import type { RateLimitStore } from '../policy/rate-limit-store.js';
import { encodeError } from '../jsonrpc/encode.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { clientAddressKey } from './client-address.js';
import type { AuthFailureLimit } from './http-limits.js';
import { utf8Length, type HttpResponse } from './http-response.js';

/** Blocked addresses kept before expired ones are swept out. */
const SWEEP_AT = 10_000;

/**
 * Throttles failed authentication per client address, so credentials cannot
 * be guessed at the speed of the network. Each failure (a 401) takes a point
 * from the address's allowance (a RateLimitStore: in memory, or shared); once it is
 * used up, every request from that address is answered 429 with Retry-After
 * until the window ends, before its credentials are looked at (otherwise a
 * correct guess would still be recognised at full speed). Successful
 * requests take nothing and, from an address that is not blocked, cost one
 * Map size check.
 *
 * Wraps whatever decides authentication: call `refuseIfBlocked` before it
 * and `failed` after it answered 401.
 */
export class AuthFailureThrottle {
  private readonly store: RateLimitStore;
  private readonly blockedUntil = new Map<string, number>();

  /** Counts in this process when the shared store cannot be reached. */
  private readonly local: FixedWindows;

  /**
   * `createLimiter`: where failures are counted (the ToolServer's shared state: with
   * `state.redis`, an address's failures on every instance add up). Default: this process.
   */
  constructor(
    private readonly limit: AuthFailureLimit,
    private readonly trustProxy: boolean,
    createLimiter?: CreateLimiter,
  ) {
    this.local = new FixedWindows(limit.points, limit.durationSeconds * 1000);
    this.store = createLimiter ? storesFrom(createLimiter)({ points: limit.points, durationSeconds: limit.durationSeconds }, 'auth-failures') : this.local;
  }

  /** Answers 429 (and returns true) when the request's address has used up its failures. */
  refuseIfBlocked(req: EndpointRequest, res: HttpResponse): boolean {
    if (this.blockedUntil.size === 0) return false;
    const address = clientAddressKey(req, this.trustProxy);
    const until = this.blockedUntil.get(address);
    if (until === undefined) return false;
    const waitMs = until - Date.now();
    if (waitMs <= 0) {
      this.blockedUntil.delete(address);
      return false;
    }
    tooManyFailures(res, waitMs);
    return true;
  }

  /** Counts a failed authentication of `req` (already answered); the one that uses up the allowance blocks its address. */
  async failed(req: EndpointRequest): Promise<void> {
    const address = clientAddressKey(req, this.trustProxy);
    const waitMs = await this.count(address);
    if (waitMs === undefined) return;
    if (this.blockedUntil.size >= SWEEP_AT) this.sweep();
    this.blockedUntil.set(address, Date.now() + Math.max(waitMs, 1_000));
  }

  /**
   * Takes a point for the failure: the ms to block the address for when it used up the
   * allowance (its last point, or a failure racing past it is refused), undefined while points
   * are left. From the shared count; while its store cannot be reached (Redis down), from this
   * process's own: guessing stays throttled per instance, and the 401 already sent stands.
   */
  private async count(address: string): Promise<number | undefined> {
    if (this.store === this.local) return usedUp(this.local, address, this.limit.points);
    try {
      return await usedUp(this.store, address, this.limit.points);
    } catch {
      return usedUp(this.local, address, this.limit.points);
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [address, until] of this.blockedUntil) if (until <= now) this.blockedUntil.delete(address);
  }
}

/** Takes a point: the ms until the window ends when that used up the allowance or was refused, undefined while points are left. */
async function usedUp(store: RateLimitStore, key: string, points: number): Promise<number | undefined> {
  const refusedMs = await store.take(key);
  if (refusedMs !== undefined) return refusedMs;
  // Taken: was it the last one? (A shared store is asked once more: failures are few.)
  const window = await store.peek(key);
  return window && window.used >= points ? window.resetsInMs : undefined;
}

function tooManyFailures(res: HttpResponse, waitMs: number): void {
  const seconds = Math.ceil(waitMs / 1_000);
  const json = encodeError(
    undefined,
    new RpcError(ErrorCode.InvalidRequest, `Too Many Requests: too many failed authentications from this address; retry in ${seconds} s`),
  );
  res.writeHead(429, { 'content-type': 'application/json', 'content-length': utf8Length(json), 'retry-after': String(seconds) });
  res.end(json);
}
