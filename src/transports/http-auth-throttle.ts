import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { CreateLimiter } from '../state/index.js';
import { encodeError } from '../jsonrpc/encode.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { clientAddressKey } from './client-address.js';
import type { AuthFailureLimit } from './http-limits.js';
import type { HttpResponse } from './http-response.js';

type Flexible = typeof import('rate-limiter-flexible');

/** Blocked addresses kept before expired ones are swept out. */
const SWEEP_AT = 10_000;

/**
 * Throttles failed authentication per client address, so credentials cannot
 * be guessed at the speed of the network. Each failure (a 401) takes a point
 * from the address's allowance (rate-limiter-flexible, in memory); once it is
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
  private readonly limiter: RateLimiterAbstract;
  private readonly flexible: Flexible;
  private readonly blockedUntil = new Map<string, number>();

  /** Counts in this process when the shared store cannot be reached. */
  private readonly local: RateLimiterAbstract;

  /**
   * `createLimiter`: where failures are counted (the ToolServer's shared state: with
   * `state.redis`, an address's failures on every instance add up). Default: this process.
   */
  constructor(
    limit: AuthFailureLimit,
    private readonly trustProxy: boolean,
    createLimiter?: CreateLimiter,
  ) {
    // Loaded only by a server that authenticates.
    this.flexible = createRequire(import.meta.url)('rate-limiter-flexible') as Flexible;
    this.local = new this.flexible.RateLimiterMemory({ points: limit.points, duration: limit.durationSeconds, keyPrefix: 'auth-failures' });
    this.limiter = createLimiter ? createLimiter({ points: limit.points, durationSeconds: limit.durationSeconds }, 'auth-failures') : this.local;
  }

  /** Answers 429 (and returns true) when the request's address has used up its failures. */
  refuseIfBlocked(req: IncomingMessage, res: HttpResponse): boolean {
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
  async failed(req: IncomingMessage): Promise<void> {
    const address = clientAddressKey(req, this.trustProxy);
    let waitMs: number;
    try {
      const taken = await this.consume(address);
      if (taken.remainingPoints > 0) return;
      waitMs = taken.msBeforeNext;
    } catch (rejection) {
      // Failures racing past the last point are refused by the limiter: block as well.
      if (!(rejection instanceof this.flexible.RateLimiterRes)) throw rejection;
      waitMs = rejection.msBeforeNext;
    }
    if (this.blockedUntil.size >= SWEEP_AT) this.sweep();
    this.blockedUntil.set(address, Date.now() + Math.max(waitMs, 1_000));
  }

  /**
   * A point from the shared count; while its store cannot be reached (Redis down), from this
   * process's own: guessing stays throttled per instance, and the 401 already sent stands.
   */
  private async consume(address: string) {
    if (this.limiter === this.local) return this.local.consume(address, 1);
    try {
      return await this.limiter.consume(address, 1);
    } catch (rejection) {
      if (rejection instanceof this.flexible.RateLimiterRes) throw rejection;
      return this.local.consume(address, 1);
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [address, until] of this.blockedUntil) if (until <= now) this.blockedUntil.delete(address);
  }
}

function tooManyFailures(res: HttpResponse, waitMs: number): void {
  const seconds = Math.ceil(waitMs / 1_000);
  const json = encodeError(
    undefined,
    new RpcError(ErrorCode.InvalidRequest, `Too Many Requests: too many failed authentications from this address; retry in ${seconds} s`),
  );
  res.writeHead(429, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), 'retry-after': String(seconds) });
  res.end(json);
}
