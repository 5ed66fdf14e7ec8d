import { RpcError } from '../../jsonrpc/errors.js';
import { limitsUnavailable } from '../pipeline/limits.js';
import type { RateDecision, RateLimiter } from '../../policy/rate-limit.js';

/** JSON-RPC "server error" range: a request refused for its rate, with when to retry (HTTP: 429 and Retry-After). */
export const RATE_LIMITED = -32000;

export class RateLimitedError extends RpcError {
  constructor(
    readonly retryAfterMs: number,
    message: string,
  ) {
    super(RATE_LIMITED, message, { retryAfterMs }, 429);
  }

  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.retryAfterMs / 1000));
  }
}

/**
 * Takes a rate-limit point for a request that is not a tool call
 * (`prompts/get`, `resources/read`, `completion/complete`; completion.mdx:
 * servers SHOULD rate limit completion requests). The caller's budget is the
 * one tool calls spend (`callerKey`: callerKeyOf(exchange)); the method name stands where a tool name would (tool
 * names cannot hold "/", so the buckets never collide). A promise only when
 * the limiter's store answers with one (shared state); a refusal throws.
 */
export function takeRequestPoint(limiter: RateLimiter | undefined, method: string, callerKey: string): void | Promise<void> {
  if (!limiter) return;
  // '' is the anonymous caller's key: the limiter's shared anonymous bucket.
  let decision: RateDecision | Promise<RateDecision>;
  try {
    decision = limiter.consume(method, callerKey || undefined);
  } catch (err) {
    limitsUnavailable(err, method);
  }
  // The in-process store decides synchronously: an allowed request adds no promise here (as rateLimitStage).
  if (decision instanceof Promise)
    return decision.then(
      (d) => admit(d, method),
      (err: unknown) => limitsUnavailable(err, method),
    );
  admit(decision, method);
}

/** Returns when `decision` allows the request; else throws the refusal, with when to retry. */
function admit(decision: RateDecision, method: string): void {
  if (decision.allowed) return;
  const { points, durationSeconds } = decision.rule;
  const retryAfterMs = Math.max(decision.retryAfterMs, 1);
  const whose = decision.scope === 'tool' ? method : 'this caller';
  throw new RateLimitedError(
    retryAfterMs,
    `Rate limit exceeded for ${whose} (${points} requests per ${durationSeconds} s); retry after ${Math.ceil(retryAfterMs / 1000)} s`,
  );
}
