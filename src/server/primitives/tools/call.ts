import type { CompiledTool } from '../../compile-tool.js';
import type { CallOutcome, Operation, Stage } from '../../pipeline/operation.js';
import { compose } from '../../compose.js';
import { RpcError } from '../../../jsonrpc/errors.js';
import { argumentSizeStage, concurrencyStage, openStage, rateLimitStage } from '../../pipeline/limits.js';
import { resultSizeStage } from '../../pipeline/result-size.js';
import { approvalStage } from '../../pipeline/approval.js';
import { inputsStage } from '../../pipeline/inputs.js';
import { readArgumentsStage, resolveStage } from '../../pipeline/resolve.js';
import { authorizeStage } from '../../pipeline/authorize.js';
import { ScopePolicy } from '../../../policy/auth/scope-policy.js';
import { runOperation, TOOL_RUN } from '../../pipeline/run.js';
import { validateArgsStage } from '../../pipeline/validate-args.js';
import type { PipelineOptions } from '../../pipeline/index.js';
import { Answered, type MethodPhases, type MethodResult } from '../method-table.js';

/** What a tool call answers, as the method table types every method's result. */
type Answer = Promise<MethodResult | undefined>;

/** What a check that let the call through answers (its `next`): anything else is the call's refusal. */
const PASSED = Symbol('passed');
const passed = () => PASSED as unknown as Promise<CallOutcome>;

/**
 * Server steps run one after the other, each handed a `next` that only says it passed: the
 * passed marker at once when every step passed synchronously (no promise, no microtask, no
 * closure), else the first refusal, or a promise of what the rest answer.
 */
function checks(steps: Stage[]): (op: Operation, from?: number) => unknown {
  const run = (op: Operation, from = 0): unknown => {
    for (let i = from; i < steps.length; i++) {
      const outcome: unknown = steps[i](op, passed);
      if (outcome === PASSED) continue;
      if (i === steps.length - 1) return outcome;
      return (outcome as Promise<unknown>).then((o) => (o === PASSED ? run(op, i + 1) : o));
    }
    return PASSED;
  };
  return run;
}

/** What a check answered: `passed` when it let the call through, else its refusal (an isError result) answered without running. */
function passedOr<T>(outcome: unknown, passed: T): T | Answered | Promise<T | Answered> {
  if (outcome === PASSED) return passed;
  return (outcome as Promise<unknown>).then((o) => (o === PASSED ? passed : new Answered(o as MethodResult)));
}

/**
 * `tools/call` by its phases (docs/architecture.md#the-way-of-one-request), composed by the one
 * route composer like every declared method: [audit, per run] → target: resolve the tool →
 * authorize (the caller's scopes) → read the arguments (and mirrored headers) → refuse it if
 * the server is shutting down → cap the argument size → rate-limit; params: validate the
 * arguments; then the user middleware (server.use); run: open the input state → ask for approval
 * when needed → wait for a free slot → cap the result size → run the handler (its output
 * validated). Each step is a small function with one job; a step that passes synchronously adds
 * no promise. Its refusals and failures are isError results the model reads; tasks run it as
 * one of their passes (`mode`).
 */
export function toolCallPhases(options: PipelineOptions, mode?: MethodPhases['mode']): MethodPhases<CompiledTool> {
  const { calls, auditCall, logger } = options;
  const target = checks([
    resolveStage(options.registry),
    authorizeStage(options.scopePolicy ?? new ScopePolicy()),
    readArgumentsStage,
    openStage(calls),
    argumentSizeStage(options.maxArgumentBytes),
    ...(options.rateLimiter ? [rateLimitStage(options.rateLimiter)] : []),
  ]);
  const validate = checks([validateArgsStage]);
  const run = compose<Operation, CallOutcome>(
    [
      inputsStage(options.requestState),
      approvalStage(options.approval),
      // A human deciding does not hold a slot: only running handlers count.
      concurrencyStage(options.concurrency),
      resultSizeStage(options.maxResultBytes, options.resultStore),
    ],
    (op) => runOperation(op, TOOL_RUN, options),
  ) as (op: Operation) => Answer;
  return {
    services: options,
    mode,
    signalled: true,
    serve: (op, given, go) => {
      const done = op.track(calls);
      try {
        const running = (auditCall ? auditCall(op, () => go(op, given) as Promise<CallOutcome>) : go(op, given)) as Answer;
        running.then(done, done);
        return running;
      } catch (err) {
        done();
        throw err;
      }
    },
    target: (op) => passedOr(target(op), op.tool),
    params: (op, _tool, given) => passedOr(validate(op), given),
    viewed: (op) => ({ name: op.tool.name, arguments: op.handlerArgs }),
    shown: ({ tool, inputSchema }) => ({ tool: { name: tool.name, title: tool.title, annotations: tool.annotations, inputSchema } }),
    // Arguments a middleware changed are what the handler gets, approval shows, requestState binds and the audit keeps (not validated again).
    run: (op, _tool, after) => {
      if (after !== op.params && after?.arguments !== op.handlerArgs) {
        op.handlerArgs = after?.arguments;
        op.args = (after?.arguments ?? {}) as Record<string, unknown>;
      }
      return run(op);
    },
    // A middleware's ToolError is an isError result, an RpcError the JSON-RPC error; anything else an internal failure.
    middlewareFailed: (op, err) => {
      if (err instanceof RpcError) throw err;
      return TOOL_RUN.failed(op, err, logger) as unknown as MethodResult;
    },
  };
}
