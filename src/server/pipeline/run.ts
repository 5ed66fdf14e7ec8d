import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import { recordedText } from '../../jsonrpc/recorded.js';
import { nodeCrypto } from '../../runtime/lazy-crypto.js';
import type { Logger } from '../../runtime/logger.js';
import { ServerShutdown } from '../calls-in-flight.js';
import { CallContext } from '../context.js';
import type { InputRequiredResult } from '../inputs/call-inputs.js';
import { MissingClientCapability } from '../inputs/missing-capability.js';
import { normalizeResult } from '../normalize-result.js';
import { ToolError, type ToolResult } from '../tool.js';
import { upstreamOf, type Operation } from './operation.js';
import { tagUpstream } from '../../tracing/server-lazy.js';
import { abortedOutcome, errorResult, formatDuration, internalFailure } from './results.js';

export interface HandlerOptions {
  logger: Logger;
  /** Default time a handler may run (a tool's, prompt's or resource's own `timeoutMs` wins). */
  timeoutMs: number;
}

/**
 * What a method's work is, and how its endings are answered: the one thing
 * the runner leaves to the method. A tool call answers its failures with
 * `isError` results the model reads; every other method with JSON-RPC errors.
 */
interface RunKind<R> {
  /** Starts the work: the tool's handler, the prompt's `get`, the resource's `read`, the completer. */
  invoke(op: Operation, ctx: CallContext): unknown;
  timeoutMs(op: Operation): number | undefined;
  /** The work's value as the client gets it (a throw here is a failure like the handler's own). */
  done(op: Operation, value: unknown, logger: Logger): R;
  timedOut(op: Operation, timeoutMs: number): R;
  /** Stopped before it finished: cancelled by its client or lost with it (no answer), or by a shutdown (answered, saying so). */
  aborted(op: Operation): R | undefined;
  failed(op: Operation, err: unknown, logger: Logger): R;
}

/**
 * The one runner: runs an operation's work with a signal that aborts on
 * cancel, disconnect, shutdown or timeout, and turns how it ends into the
 * answer. A question for the client stops it (modern era: an
 * InputRequiredResult; the retry runs it again with the answers); a late
 * result after a timeout is dropped; a cancelled request answers nothing.
 */
export async function runOperation<R>(op: Operation, kind: RunKind<R>, options: HandlerOptions): Promise<R | InputRequiredResult | undefined> {
  if (op.aborted) return stopped(op, kind, false, 0);
  const ctx = new CallContext(op, options.logger);
  const upstream = upstreamOf(op);
  if (upstream !== undefined) tagUpstream(upstream);
  op.handlerRunning = true;
  const timeoutMs = kind.timeoutMs(op) ?? options.timeoutMs;
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    let value = kind.invoke(op, ctx);
    // Only work that is still running can time out or be cancelled: synchronous handlers
    // (most quick tools) need no timer, no race and no signal.
    if (isThenable(value)) {
      const stop = new Promise<void>((resolve) => {
        op.onAbort = resolve;
        timer = setTimeout(() => {
          timedOut = true;
          op.abort(new Error(`timed out after ${formatDuration(timeoutMs)}`));
        }, timeoutMs);
      });
      value = await Promise.race([value, stop]);
    }
    if (op.aborted) return stopped(op, kind, timedOut, timeoutMs);
    return kind.done(op, value, options.logger);
  } catch (err) {
    if (op.aborted) return stopped(op, kind, timedOut, timeoutMs);
    return kind.failed(op, err, options.logger);
  } finally {
    ctx.finish();
    clearTimeout(timer);
    op.onAbort = undefined;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function';
}

function stopped<R>(op: Operation, kind: RunKind<R>, timedOut: boolean, timeoutMs: number): R | InputRequiredResult | undefined {
  if (op.hasPendingInputs) {
    op.status = 'input_required';
    return op.inputs.inputRequiredResult();
  }
  return timedOut ? kind.timedOut(op, timeoutMs) : kind.aborted(op);
}

/** tools/call: every ending is a result the model can read, but a cancellation (no answer) and a missing capability of a modern client (-32021). */
export const TOOL_RUN: RunKind<ToolResult> = {
  invoke: (op, ctx) => op.tool.tool.handler(op.handlerArgs as never, ctx),
  timeoutMs: (op) => op.tool.tool.timeoutMs,
  done: finishResult,
  timedOut(op, timeoutMs) {
    op.status = 'timeout';
    return errorResult(
      `Tool ${op.tool.name} timed out after ${formatDuration(timeoutMs)}; the call was stopped. Retry with a smaller request, or ask for a longer timeout.`,
    );
  },
  aborted: abortedOutcome,
  failed(op, err, logger) {
    if (err instanceof MissingClientCapability) return missingCapability(op, err);
    if (err instanceof ToolError) {
      op.status = 'tool_error';
      const result = errorResult(err.message);
      if (err.structuredContent !== undefined) result.structuredContent = err.structuredContent;
      return result;
    }
    return internalFailure(op, err, logger);
  },
};

/** Normalizes the handler's value and holds structured output to the declared outputSchema. */
function finishResult(call: Operation, value: unknown, logger: Logger): ToolResult {
  const normalized = normalizeResult(value);
  if (!normalized.ok) return internalFailure(call, `handler returned an invalid result: ${normalized.problem}`, logger);
  const result = normalized.result;
  if (result.isError) {
    call.status = 'tool_error';
    return result;
  }
  const { validateOutput } = call.tool;
  if (validateOutput) {
    if (result.structuredContent === undefined) return internalFailure(call, 'the tool declares an outputSchema but returned no structuredContent', logger);
    const check = validateOutput(result.structuredContent);
    if (!check.ok) return internalFailure(call, `structuredContent does not match the outputSchema: ${check.problems.join('; ')}`, logger);
  }
  return result;
}

/** -32021 for modern clients (HTTP 400); legacy clients read why in an isError result. */
function missingCapability(call: Operation, err: MissingClientCapability): ToolResult {
  call.status = 'refused';
  call.reason = 'missing_capability';
  if (call.info.era === 'modern') {
    call.status = 'protocol_error';
    throw missingCapabilityError(err);
  }
  return errorResult(`Tool ${call.tool.name} needs a client that supports ${err.capability}; this client did not declare it.`);
}

function missingCapabilityError(err: MissingClientCapability): RpcError {
  return new RpcError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${err.capability}`, {
    requiredCapabilities: { [err.capability]: {} },
  });
}

/** What a request that is not a tool call is about, in its errors and logs ("prompt greet", "resource file:///a"). */
function whatOf(op: Operation): string {
  return op.binding?.tool ?? op.target;
}

type Answer = Record<string, unknown>;

/**
 * Every other method's work (prompts/get, resources/read, completion/complete):
 * `op.handler` runs and `op.finish` makes its value the result; its endings
 * are JSON-RPC errors. A ToolError is the author's message to the client
 * (-32602), anything else -32603 with a correlation id (the log has the detail).
 */
const REQUEST_RUN: RunKind<Answer> = {
  invoke: (op, ctx) => op.handler!(ctx),
  timeoutMs: (op) => op.timeoutMs,
  done: (op, value) => op.finish!(value),
  timedOut(op, timeoutMs) {
    op.status = 'timeout';
    throw new RpcError(ErrorCode.InternalError, `${whatOf(op)} timed out after ${timeoutMs} ms`);
  },
  aborted(op) {
    op.status = 'cancelled';
    // Stopped by a shutdown: unlike a client's cancellation, the client still waits for an answer.
    if (!(op.abortReason instanceof ServerShutdown)) return undefined;
    op.reason = 'shutting_down';
    throw new RpcError(
      ErrorCode.InternalError,
      `${whatOf(op)} was stopped because the server is shutting down; retry in a few seconds (another instance may answer).`,
    );
  },
  failed(op, err, logger) {
    throw requestFailure(op, err, logger);
  },
};

function requestFailure(op: Operation, err: unknown, logger: Logger): RpcError {
  if (err instanceof RpcError) return err;
  if (err instanceof ToolError) return new RpcError(ErrorCode.InvalidParams, err.message);
  if (err instanceof MissingClientCapability) {
    if (op.info.era === 'modern') return missingCapabilityError(err);
    return new RpcError(ErrorCode.InvalidRequest, `${whatOf(op)} needs a client that supports ${err.capability}; this client did not declare it`);
  }
  const correlationId = nodeCrypto().randomUUID();
  op.correlationId = correlationId;
  logger.error({ correlationId, what: recordedText(whatOf(op)), err }, 'a request handler failed');
  return new RpcError(ErrorCode.InternalError, `Internal error (correlation id ${correlationId})`);
}

/**
 * Serves a request that is not a tool call around its checks and user
 * middleware (`serve`, which runs REQUEST_RUN for the work): cancellable by
 * id and by the transport from the moment it arrives, its failures mapped as
 * the work's are (a user middleware's ToolError is -32602, its bug -32603
 * with a correlation id), a stopped request answered as the runner answers it.
 */
export function serveRequest(op: Operation, logger: Logger, serve: () => Answer | undefined | Promise<Answer | undefined>): Promise<Answer | undefined> {
  // Registered before anything runs: a cancellation that arrives while the checks run is not lost.
  const unwatch = op.watch();
  // A timeout is answered as the runner said; any other throw of a stopped request is the stop's doing.
  const failed = (err: unknown): Answer | undefined => {
    unwatch();
    if (!op.aborted || op.status === 'timeout') throw requestFailure(op, err, logger);
    return stopped(op, REQUEST_RUN, false, 0) as Answer | undefined;
  };
  // Not async: an async function's promise and its await were one more layer on every request.
  let answer: Answer | undefined | Promise<Answer | undefined>;
  try {
    answer = serve();
  } catch (err) {
    // A synchronous throw of the checks is answered as a rejection would be.
    return new Promise((resolve) => resolve(failed(err)));
  }
  if (!(answer instanceof Promise)) {
    unwatch();
    return Promise.resolve(answer);
  }
  return answer.then((value) => {
    unwatch();
    return value;
  }, failed);
}

/** Runs a request's work (REQUEST_RUN): its result object, a question for the client (modern), or nothing (cancelled). */
export function runRequest(op: Operation, options: HandlerOptions): Promise<Answer | undefined> {
  return runOperation(op, REQUEST_RUN, options) as Promise<Answer | undefined>;
}
