import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import type { JsonRpcRequest, RequestId } from '../../jsonrpc/types.js';
import { nodeCrypto } from '../../runtime/lazy-crypto.js';
import { isPlainObject } from '../../protocol/content.js';
import { ToolError } from '../../protocol/tool-error.js';
import type { Era } from '../../protocol/versions.js';
import { MissingClientCapability } from '../inputs/missing-capability.js';
import { CallInputs, INPUT_REQUIRED, type InputRequiredResult } from '../inputs/call-inputs.js';
import type { RequestStateCodec, StateBinding } from '../inputs/request-state.js';
import type { CreateMessageResult, ElicitResult, InputMethod, ListRootsResult } from '../inputs/responses.js';
import type { Logger } from '../../runtime/logger.js';
import { callerOf, type Exchange } from '../exchange.js';
import { authInfoOf, principalOf } from '../../policy/auth/caller.js';
import type { AskOptions, ToolContext } from '../tool.js';
import type { MethodResult, RequestFacts } from './method-table.js';
import type { TrackedRequest } from './tracked-request.js';
import { ServerShutdown } from '../calls-in-flight.js';
import { recordedText } from '../../jsonrpc/recorded.js';

/**
 * What a prompt's or a resource's handler knows about its request, and what
 * it may ask the client. Asking works as for tools: modern clients get an
 * InputRequiredResult and retry with the answers (the handler runs again, so
 * ask before acting); legacy clients get a real request on the same channel.
 * It is the part of a tool's context (ToolContext) that is not about a tool
 * call (progress, log, requireClientCapability), so the two cannot drift.
 */
export type RequestContext = Pick<
  ToolContext,
  'signal' | 'requestId' | 'era' | 'protocolVersion' | 'clientCapabilities' | 'clientInfo' | 'caller' | 'principal' | 'auth' | 'elicit' | 'sample' | 'listRoots'
>;

export interface RunLimits {
  codec: RequestStateCodec;
  timeoutMs: number;
  logger: Logger;
  /** The request as the server tracks it (shutdown, audit): its stop aborts the run, and how the run ends is written on it. */
  tracked?: TrackedRequest;
}

/** How a handled request ended: its value, a question for the client (modern), or nothing (cancelled). */
export type RunOutcome<T> = { value: T } | InputRequiredResult | undefined;

/** What a request runs, once its checks (which may wait) have passed. */
export interface PreparedRun<T> {
  /** Ties a sealed `requestState` to this prompt or URI, these arguments and this caller. */
  binding: StateBinding;
  timeoutMs?: number;
  handler: (ctx: RequestContext) => T | Promise<T>;
}

/** Runs the handler of a request whose checks passed: its value, a question for the client, or nothing (cancelled). */
export type Execute<T> = (prepared: PreparedRun<T>) => Promise<RunOutcome<T>>;

/**
 * Serves a prompt's or a resource's request, as the pipeline serves a tool
 * call: cancellable by id and by the transport from the moment the request
 * arrives (`serve` runs inside: the route's checks, the user middleware, and
 * `execute` for the handler), the handler bounded in time, with the modern
 * retry's `inputResponses` and signed `requestState` opened first (forged,
 * expired or borrowed state is -32602, mrtr.mdx "Server Requirements").
 * Failures become JSON-RPC errors: a ToolError is the author's message to
 * the client (-32602), anything else -32603 with a correlation id (the log
 * has the detail).
 */
export async function runWithInputs<T>(
  request: JsonRpcRequest,
  exchange: Exchange,
  era: Era,
  facts: RequestFacts,
  limits: RunLimits,
  serve: (execute: Execute<T>) => Promise<MethodResult | undefined>,
): Promise<MethodResult | undefined> {
  // Registered before the first await: a cancellation that arrives while the checks run is not lost.
  const controller = new AbortController();
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let timedOut = false;
  const abort = (reason: unknown) => {
    if (controller.signal.aborted) return;
    controller.abort(reason);
    stop();
  };
  const cancellable = { abort };
  exchange.peer.inflight.add(request.id, cancellable);
  const unwatch = exchange.onClose?.((reason) => abort(reason));
  const { tracked } = limits;
  tracked?.bind(abort);
  let inputs: CallInputs | undefined;
  let what = request.method;
  let timeoutMs = limits.timeoutMs;
  // Stopped: to ask the client something, by its timeout, or cancelled (no answer).
  const stoppedOutcome = (): InputRequiredResult | undefined => {
    if (inputs?.hasPending) {
      if (tracked) tracked.status = 'input_required';
      return inputs.inputRequiredResult();
    }
    if (timedOut) {
      if (tracked) tracked.status = 'timeout';
      throw new RpcError(ErrorCode.InternalError, `${what} timed out after ${timeoutMs} ms`);
    }
    // Stopped by a shutdown: unlike a client's cancellation, the client still waits for an answer.
    if (controller.signal.reason instanceof ServerShutdown) {
      if (tracked) {
        tracked.status = 'cancelled';
        tracked.reason = 'shutting_down';
      }
      throw new RpcError(
        ErrorCode.InternalError,
        `${what} was stopped because the server is shutting down; retry in a few seconds (another instance may answer).`,
      );
    }
    return undefined;
  };
  const execute: Execute<T> = async (prepared) => {
    if (controller.signal.aborted) return undefined;
    what = prepared.binding.tool;
    let timer: NodeJS.Timeout | undefined;
    try {
      const answers = era === 'modern' ? openAnswers(request.params ?? {}, limits.codec, prepared.binding) : {};
      inputs = new CallInputs(era, facts.clientCapabilities, exchange, answers, limits.codec, prepared.binding);
      inputs.onPending = () => abort(INPUT_REQUIRED);
      timeoutMs = prepared.timeoutMs ?? limits.timeoutMs;
      timer = setTimeout(() => {
        timedOut = true;
        abort(new Error('timed out'));
      }, timeoutMs);
      const ctx = contextFor(request.id, era, facts, exchange, inputs, controller.signal);
      const value = await Promise.race([Promise.resolve().then(() => prepared.handler(ctx)), stopped]);
      if (!controller.signal.aborted) return { value: value as T };
    } catch (err) {
      // Mapped here, so a user middleware around the handler sees the error the client gets.
      if (!controller.signal.aborted) throw failure(err, era, what, limits.logger, tracked);
    } finally {
      clearTimeout(timer);
    }
    return stoppedOutcome();
  };
  try {
    return await serve(execute);
  } catch (err) {
    if (!controller.signal.aborted) throw failure(err, era, what, limits.logger, tracked);
    return stoppedOutcome() as MethodResult | undefined;
  } finally {
    unwatch?.();
    exchange.peer.inflight.remove(cancellable);
  }
}

function openAnswers(params: Record<string, unknown>, codec: RequestStateCodec, binding: StateBinding): Record<string, unknown> {
  const { inputResponses, requestState } = params;
  if (inputResponses !== undefined && !isPlainObject(inputResponses))
    throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: inputResponses must be an object');
  if (requestState === undefined && inputResponses === undefined) return {};
  const earlier = requestState === undefined ? {} : codec.open(requestState, binding);
  return { ...earlier, ...(inputResponses ?? {}) };
}

function contextFor(requestId: RequestId, era: Era, facts: RequestFacts, exchange: Exchange, inputs: CallInputs, signal: AbortSignal): RequestContext {
  const ask = (method: InputMethod, params: Record<string, unknown>, options?: AskOptions) => {
    if (signal.aborted) return Promise.reject(signal.reason);
    return inputs.ask(method, params, options?.key ?? inputs.nextKey(method), signal);
  };
  const caller = callerOf(exchange);
  return {
    signal,
    requestId,
    era,
    protocolVersion: facts.protocolVersion,
    clientCapabilities: facts.clientCapabilities,
    clientInfo: facts.clientInfo,
    caller,
    principal: principalOf(caller),
    auth: authInfoOf(caller),
    elicit: (message, requestedSchema, options) => ask('elicitation/create', { message, requestedSchema }, options) as Promise<ElicitResult>,
    sample: (params, options) => ask('sampling/createMessage', params, options) as Promise<CreateMessageResult>,
    listRoots: (options) => ask('roots/list', {}, options) as Promise<ListRootsResult>,
  };
}

function failure(err: unknown, era: Era, what: string, logger: Logger, tracked?: TrackedRequest): RpcError {
  if (err instanceof RpcError) return err;
  if (err instanceof ToolError) return new RpcError(ErrorCode.InvalidParams, err.message);
  if (err instanceof MissingClientCapability) {
    if (era === 'modern') {
      return new RpcError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${err.capability}`, {
        requiredCapabilities: { [err.capability]: {} },
      });
    }
    return new RpcError(ErrorCode.InvalidRequest, `${what} needs a client that supports ${err.capability}; this client did not declare it`);
  }
  const correlationId = nodeCrypto().randomUUID();
  if (tracked) tracked.correlationId = correlationId;
  logger.error({ correlationId, what: recordedText(what), err }, 'a prompt or resource handler failed');
  return new RpcError(ErrorCode.InternalError, `Internal error (correlation id ${correlationId})`);
}
