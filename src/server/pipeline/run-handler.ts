import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import { CallContext } from '../context.js';
import { MissingClientCapability } from '../inputs/missing-capability.js';
import type { Logger } from '../../runtime/logger.js';
import { normalizeResult } from '../normalize-result.js';
import { ToolError, type ToolResult } from '../tool.js';
import type { CallOutcome, ToolCall } from './call.js';
import { errorResult, formatDuration, internalFailure, abortedOutcome } from './results.js';

export interface HandlerOptions {
  logger: Logger;
  /** Default time a handler may run (a tool's own `timeoutMs` wins). */
  timeoutMs: number;
}

/**
 * Runs the handler with a signal that aborts on cancel, disconnect or
 * timeout. A timed-out call answers with an `isError` result and its late
 * result is dropped; a cancelled call answers nothing.
 */
export function runHandler(options: HandlerOptions): (call: ToolCall) => Promise<CallOutcome> {
  return async (call) => {
    const { tool } = call;
    if (call.aborted) return stoppedOutcome(call, false, 0);
    const ctx = new CallContext(call, options.logger);
    call.handlerRunning = true;
    const timeoutMs = tool.tool.timeoutMs ?? options.timeoutMs;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    try {
      let value = tool.tool.handler(call.handlerArgs as never, ctx);
      // Only a handler that is still running can time out or be cancelled: synchronous ones
      // (most quick tools) need no timer, no race and no signal.
      if (isThenable(value)) {
        const stopped = new Promise<void>((resolve) => {
          call.onAbort = resolve;
          timer = setTimeout(() => {
            timedOut = true;
            call.abort(new Error(`timed out after ${formatDuration(timeoutMs)}`));
          }, timeoutMs);
        });
        value = await Promise.race([value, stopped]);
      }
      if (call.aborted) return stoppedOutcome(call, timedOut, timeoutMs);
      return finishResult(call, value, options.logger);
    } catch (err) {
      if (call.aborted) return stoppedOutcome(call, timedOut, timeoutMs);
      if (err instanceof MissingClientCapability) return missingCapability(call, err);
      if (err instanceof ToolError) {
        call.status = 'tool_error';
        const result = errorResult(err.message);
        if (err.structuredContent !== undefined) result.structuredContent = err.structuredContent;
        return result;
      }
      return internalFailure(call, err, options.logger);
    } finally {
      ctx.finish();
      clearTimeout(timer);
      call.onAbort = undefined;
    }
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function';
}

function stoppedOutcome(call: ToolCall, timedOut: boolean, timeoutMs: number): CallOutcome {
  if (call.hasPendingInputs) {
    call.status = 'input_required';
    return call.inputs.inputRequiredResult();
  }
  if (!timedOut) return abortedOutcome(call);
  call.status = 'timeout';
  return errorResult(
    `Tool ${call.tool.name} timed out after ${formatDuration(timeoutMs)}; the call was stopped. Retry with a smaller request, or ask for a longer timeout.`,
  );
}

/** Normalizes the handler's value and holds structured output to the declared outputSchema. */
function finishResult(call: ToolCall, value: unknown, logger: Logger): ToolResult {
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
function missingCapability(call: ToolCall, err: MissingClientCapability): ToolResult {
  call.status = 'refused';
  call.reason = 'missing_capability';
  if (call.info.era === 'modern') {
    call.status = 'protocol_error';
    throw new RpcError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${err.capability}`, {
      requiredCapabilities: { [err.capability]: {} },
    });
  }
  return errorResult(`Tool ${call.tool.name} needs a client that supports ${err.capability}; this client did not declare it.`);
}
