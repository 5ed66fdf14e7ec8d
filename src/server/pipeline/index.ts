import type { CallsInFlight } from '../calls-in-flight.js';
import type { ToolRegistry } from '../registry.js';
import type { CallOutcome, Operation } from './operation.js';
import type { ConcurrencyGate } from '../../policy/concurrency.js';
import type { RateLimiter } from '../../policy/rate-limit.js';
import type { RequestStateCodec } from '../inputs/request-state.js';
import type { ResultStore } from '../../state/result-store.js';
import type { ApprovalMode } from './approval.js';
import type { ScopePolicy } from '../../policy/auth/scope-policy.js';
import type { HandlerOptions } from './run.js';

/** What the tools primitive's `tools/call` is built from (primitives/tools/call.ts): its registry, limits, policies and runner. */
export interface PipelineOptions extends HandlerOptions {
  registry: ToolRegistry;
  requestState: RequestStateCodec;
  approval: ApprovalMode;
  maxArgumentBytes: number;
  maxResultBytes: number;
  resultStore: ResultStore;
  concurrency: ConcurrencyGate;
  rateLimiter?: RateLimiter;
  /** Tools' scope requirements, checked right after the tool is found (default: only the tools' own `scopes`). */
  scopePolicy?: ScopePolicy;
  /** The server's calls in flight (graceful shutdown waits for them; once closed, new calls are refused). */
  calls: CallsInFlight;
  /** The audit step (auditStep), outermost: it sees each run of a call however it ends (a task's record is its outcome). */
  auditCall?: (op: Operation, next: () => Promise<CallOutcome>) => Promise<CallOutcome>;
}

export type { ApprovalMode };
