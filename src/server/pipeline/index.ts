import type { CallsInFlight } from '../calls-in-flight.js';
import type { Exchange } from '../exchange.js';
import type { ToolRegistry } from '../registry.js';
import { thenCleanUp, Operation, type CallInfo, type CallOutcome, type Stage } from './operation.js';
import { compose } from '../compose.js';
import type { ConcurrencyGate } from '../../policy/concurrency.js';
import type { RateLimiter } from '../../policy/rate-limit.js';
import type { RequestStateCodec } from '../inputs/request-state.js';
import type { ResultStore } from '../../state/result-store.js';
import { argumentSizeStage, concurrencyStage, openStage, rateLimitStage } from './limits.js';
import { resultSizeStage } from './result-size.js';
import { approvalStage, type ApprovalMode } from './approval.js';
import { inputsStage } from './inputs.js';
import { readArgumentsStage, resolveStage } from './resolve.js';
import { authorizeStage } from './authorize.js';
import { ScopePolicy } from '../../policy/auth/scope-policy.js';
import { runOperation, TOOL_RUN, type HandlerOptions } from './run.js';
import { validateArgsStage } from './validate-args.js';
import { userMiddlewareStage } from './user-middleware.js';
import type { AnyMiddleware } from '../middleware.js';

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
  /** Outermost stages (the audit trail), which see every call however it ends. */
  outer?: Stage[];
}

/**
 * The way of one `tools/call` (docs/architecture.md#the-way-of-one-request): [audit] → resolve the tool →
 * authorize (the caller's scopes) → read the arguments (and mirrored
 * headers) → refuse it if the server is shutting down
 * → cap the argument size → rate-limit → validate the arguments → open the
 * input state → ask for approval when needed → wait for a free slot → cap the
 * result size → run the handler. The user's middleware (server.use), when
 * there is any, runs right after validation. Built once per server (again
 * when middleware is added); each stage is a small function with one job.
 */
export class CallPipeline {
  private run: (call: Operation) => Promise<CallOutcome>;
  private readonly calls: CallsInFlight;
  private readonly stages: Stage[];
  private readonly terminal: (call: Operation) => Promise<CallOutcome>;

  constructor(private readonly options: PipelineOptions) {
    this.calls = options.calls;
    const stages: Stage[] = [
      ...(options.outer ?? []),
      resolveStage(options.registry),
      authorizeStage(options.scopePolicy ?? new ScopePolicy()),
      readArgumentsStage,
      openStage(options.calls),
      argumentSizeStage(options.maxArgumentBytes),
      ...(options.rateLimiter ? [rateLimitStage(options.rateLimiter)] : []),
      validateArgsStage,
      inputsStage(options.requestState),
      approvalStage(options.approval),
      // A human deciding does not hold a slot: only running handlers count.
      concurrencyStage(options.concurrency),
      resultSizeStage(options.maxResultBytes, options.resultStore),
    ];
    this.stages = stages;
    this.terminal = (call) => runOperation(call, TOOL_RUN, options);
    this.run = compose(stages, this.terminal);
  }

  /** Recomposes the pipeline with `chain` (the user's tools/call middleware) right after validation; empty: none. */
  use(chain: readonly AnyMiddleware[]): void {
    if (chain.length === 0) {
      this.run = compose(this.stages, this.terminal);
      return;
    }
    const stages = [...this.stages];
    stages.splice(stages.indexOf(validateArgsStage) + 1, 0, userMiddlewareStage(chain, this.options.logger));
    this.run = compose(stages, this.terminal);
  }

  call(params: Record<string, unknown>, info: CallInfo, exchange: Exchange): Promise<CallOutcome> {
    const call = new Operation(params, info, exchange);
    return thenCleanUp(() => this.run(call), call.track(this.calls));
  }
}

export { Operation, type CallOutcome, type CallStatus, type Stage } from './operation.js';
export { errorResult, retryAfterMsOf } from './results.js';
export type { ApprovalMode } from './approval.js';
