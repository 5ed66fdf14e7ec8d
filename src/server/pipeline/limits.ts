import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import type { ConcurrencyGate } from '../../policy/concurrency.js';
import type { CallsInFlight } from '../calls-in-flight.js';
import { callerKeyOf } from '../exchange.js';
import type { RateDecision, RateLimiter } from '../../policy/rate-limit.js';
import type { ToolResult } from '../tool.js';
import { thenCleanUp, type CallOutcome, type Stage, type Operation } from './operation.js';
import { formatDuration, refuse, abortedOutcome, withRetryAfter } from './results.js';

/**
 * Once the server is shutting down, a new call is refused before anything
 * else is done for it (no rate-limit point spent, no approval asked).
 */
export function openStage(calls: CallsInFlight): Stage {
  return (call, next) => {
    if (!calls.closed) return next();
    return Promise.resolve(
      refuse(call, 'shutting_down', `The server is shutting down; ${call.tool.name} was not run. Retry in a few seconds (another instance may answer).`),
    );
  };
}

/** Over a rate limit: an isError result that says when to retry (HTTP also sends it as Retry-After). */
export function rateLimitStage(limiter: RateLimiter): Stage {
  return (call, next) => {
    // '' is the anonymous caller's key: the limiter's shared anonymous bucket.
    const decision = limiter.consume(call.tool.name, callerKeyOf(call.exchange) || undefined);
    if (decision instanceof Promise)
      return decision.then(
        (d) => (d.allowed ? next() : limited(call, d)),
        (err: unknown) => {
          call.reason = 'state_unavailable';
          return limitsUnavailable(err, call.tool.name);
        },
      );
    // The in-process store decides synchronously: an allowed call adds no promise here.
    if (decision.allowed) return next();
    return Promise.resolve(limited(call, decision));
  };
}

function limited(call: Operation, decision: Extract<RateDecision, { allowed: false }>): ToolResult {
  const { points, durationSeconds } = decision.rule;
  const whose = decision.scope === 'tool' ? `tool ${call.tool.name}` : 'this caller';
  const retryAfterMs = Math.max(decision.retryAfterMs, 1);
  return withRetryAfter(
    refuse(call, 'rate_limit', `Rate limit exceeded for ${whose} (${points} calls per ${durationSeconds} s). Retry after ${formatDuration(retryAfterMs)}.`),
    retryAfterMs,
  );
}

/**
 * The limiter's store failed (shared state in Redis unreachable, under state.onFailure
 * 'refuse'): the call is not run, and is refused with a JSON-RPC -32603 as a request is
 * while the audit trail cannot be written. The store's own error (which may name where it
 * is) stays out of the answer.
 */
export function limitsUnavailable(err: unknown, what: string): never {
  if (err instanceof RpcError) throw err;
  throw new RpcError(
    ErrorCode.InternalError,
    `Rate limits cannot be checked because the server's shared state is unavailable; ${what} was not run. Retry in a few seconds.`,
  );
}

/** A cap on calls in flight, with a bounded queue; beyond it, an immediate overload result. */
export function concurrencyStage(gate: ConcurrencyGate): Stage {
  return (call, next) => {
    // The common case, a free slot, adds no step of its own to the call.
    const free = gate.tryAcquire();
    return free ? thenCleanUp(next, free) : queued(gate, call, next);
  };
}

async function queued(gate: ConcurrencyGate, call: Operation, next: () => Promise<CallOutcome>): Promise<CallOutcome> {
  const release = await gate.acquire(call.signal);
  if (release) return thenCleanUp(next, release);
  if (call.signal.aborted) return abortedOutcome(call);
  return refuse(
    call,
    'overloaded',
    `The server is overloaded (${gate.maxInFlight} calls running, ${gate.maxQueued} waiting); ${call.tool.name} was not run. Retry in a few seconds.`,
  );
}

/** Arguments larger than the limit are refused before any parsing work. */
export function argumentSizeStage(maxBytes: number): Stage {
  return (call, next) => {
    // The whole message bounds the arguments: measure only when it could matter.
    const bound = call.exchange.messageBytes;
    if (bound !== undefined && bound <= maxBytes) return next();
    const bytes = Buffer.byteLength(JSON.stringify(call.args));
    if (bytes <= maxBytes) return next();
    return Promise.resolve(
      refuse(
        call,
        'arguments_too_large',
        `The arguments of ${call.tool.name} are ${bytes} bytes; the limit is ${maxBytes}. Send less data, or pass a reference (a path or URL) instead of the content.`,
      ),
    );
  };
}
