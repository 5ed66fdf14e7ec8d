import type { CallsInFlight } from '../calls-in-flight.js';
import type { CompiledTool } from '../compile-tool.js';
import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import { isPlainObject } from '../../protocol/content.js';
import { CallInputs, INPUT_REQUIRED, type InputRequiredResult } from '../inputs/call-inputs.js';
import type { RequestStateCodec, StateBinding } from '../inputs/request-state.js';
import { callerKeyOf, type Exchange } from '../exchange.js';
import { getMeta, type ClientCapabilities, type Implementation, type LogLevel } from '../../protocol/meta.js';
import type { Era } from '../../protocol/versions.js';
import type { JsonRpcRequest, RequestId } from '../../jsonrpc/types.js';
import type { AuditReason } from '../../audit/record.js';
import type { TrackedRequest } from '../primitives/tracked.js';
import type { ToolContext, ToolResult } from '../tool.js';

const NO_ANSWERS: Readonly<Record<string, unknown>> = Object.freeze({});

/** How a call ended, for the audit trail and the logs. */
export type CallStatus =
  | 'ok' // the handler returned a result
  | 'input_required' // modern era: the call asked the client for input first
  | 'tool_error' // the handler reported a failure (isError result or ToolError)
  | 'invalid_arguments'
  | 'refused' // a policy stage said no (rate limit, overload, approval declined, size)
  | 'timeout'
  | 'cancelled'
  | 'internal_error' // a bug: unexpected throw or invalid result
  | 'protocol_error'; // answered with a JSON-RPC error (unknown tool, header mismatch, …)

/** Undefined: the call was cancelled, nothing is sent. */
export type CallOutcome = ToolResult | InputRequiredResult | undefined;

/** What the dispatcher knows of the request a call came in. */
export interface CallInfo {
  era: Era;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** The minimum level the client asked to receive, if any. */
  logLevel?: LogLevel;
  progressToken?: string | number;
  requestId: RequestId;
}

/** What the dispatcher knows of a request's client, whichever era told it (RequestFacts). */
interface ClientFacts {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LogLevel;
}

/** The CallInfo of a request of `era` whose client `facts` describe. */
export function callInfoOf(request: JsonRpcRequest, era: Era, facts: ClientFacts): CallInfo {
  return {
    era,
    protocolVersion: facts.protocolVersion,
    clientCapabilities: facts.clientCapabilities,
    clientInfo: facts.clientInfo,
    logLevel: facts.logLevel,
    progressToken: progressToken(request.params),
    requestId: request.id,
  };
}

/** The request's `_meta.progressToken`, when it is one (a string or a number). */
export function progressToken(params: Record<string, unknown> | undefined): string | number | undefined {
  const token = getMeta(params)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/**
 * One request as it moves through its method's chain: a `tools/call`, a
 * `prompts/get`, a `resources/read`, … (and, for every tracked method, the
 * request the audit record describes and a shutdown stops). Cancellable,
 * bounded in time and able to ask the client something, the same way for
 * every method; what a method adds (the tool, the prompt's handler) sits on
 * fields only it sets.
 */
export class Operation implements TrackedRequest {
  /** What the request names (the tool or prompt name, the URI, the completion reference), for the audit trail and the logs. */
  target = '';
  /** tools/call: the tool, set by the resolve stage. */
  tool!: CompiledTool;
  /** The arguments as the client sent them (what the audit record keeps). */
  args: Record<string, unknown> = {};
  /** What the handler receives (a Standard Schema's parse output, or `args`). */
  handlerArgs: unknown;
  /** Answers to earlier questions (a modern retry's inputResponses and requestState), set by the inputs stage. */
  answers: Readonly<Record<string, unknown>> = NO_ANSWERS;
  /** Seals the state of a call that asks the client something (set by the inputs stage). */
  stateCodec!: RequestStateCodec;
  /** Set once the handler has started: a question it asks then stops it (modern era). */
  handlerRunning = false;
  // Opened only by a call that asks or answers something: most calls never do.
  private openedInputs?: CallInputs;
  status: CallStatus = 'ok';
  /** Why it did not run as asked, when its status alone does not say (the audit record's `reason`). */
  reason?: AuditReason;
  correlationId?: string | null;
  // Declared, not defined: a tool call (the hot path) never sets the four fields below, and its object stays as small as it was.
  /** What a sealed `requestState` is bound to, when not a tool call's (a prompt's or a resource's, set before it runs). */
  declare binding?: StateBinding;
  /** A request that is not a tool call: what runs (the prompt's `get`, the resource's `read`) and what makes its value the result. */
  declare handler?: (ctx: ToolContext) => unknown;
  declare finish?: (value: unknown) => Record<string, unknown>;
  /** The longest its handler may run (default: the server's). */
  declare timeoutMs?: number;
  /** A prompt's, resource's or completion's definition's `upstream` (a tool call reads its tool's): see upstreamOf. */
  declare upstream?: string;
  readonly startedAt = performance.now();
  /** Set once the call is cancelled, its client is gone, or its handler timed out. */
  aborted = false;
  abortReason: unknown;
  /** Told when the call aborts (the handler runner races against it). */
  onAbort?: () => void;
  // Created only when someone needs a signal: most calls finish without one.
  private controller?: AbortController;

  constructor(
    readonly params: Record<string, unknown>,
    readonly info: CallInfo,
    readonly exchange: Exchange,
  ) {}

  /** Questions for the client and their answers. */
  get inputs(): CallInputs {
    if (!this.openedInputs) {
      this.openedInputs = new CallInputs(this.info.era, this.info.clientCapabilities, this.exchange, this.answers, this.stateCodec, this.stateBinding);
      this.openedInputs.onPending = () => {
        if (this.handlerRunning) this.abort(INPUT_REQUIRED);
      };
    }
    return this.openedInputs;
  }

  /** What a sealed `requestState` is bound to: this tool (or prompt, or URI), these arguments, this caller. */
  get stateBinding(): StateBinding {
    return this.binding ?? { tool: this.tool.name, args: this.args, principal: callerKeyOf(this.exchange) };
  }

  /**
   * Prepares what the request may ask of the client. On a modern retry it
   * checks `inputResponses` and opens the signed `requestState`: forged,
   * expired or borrowed state is refused with -32602 (mrtr.mdx "Server Requirements").
   */
  openInputs(codec: RequestStateCodec): void {
    this.stateCodec = codec;
    if (this.info.era !== 'modern') return;
    const { inputResponses, requestState } = this.params;
    if (inputResponses !== undefined && !isPlainObject(inputResponses)) {
      throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: inputResponses must be an object');
    }
    if (requestState !== undefined || inputResponses !== undefined) {
      const earlier = requestState === undefined ? {} : codec.open(requestState, this.stateBinding);
      this.answers = { ...earlier, ...(inputResponses ?? {}) };
    }
  }

  /** Whether the call asked the client something it has not answered yet. */
  get hasPendingInputs(): boolean {
    return this.openedInputs?.hasPending ?? false;
  }

  /** Aborts on `notifications/cancelled`, a lost connection, or the handler's timeout. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
    this.onAbort?.();
  }

  /** Makes the call cancellable by id and by the transport, and counts it among the server's calls in flight; returns the undo. */
  track(all: CallsInFlight): () => void {
    const unwatch = this.watch();
    all.add(this);
    return () => {
      unwatch();
      all.remove(this);
    };
  }

  /** Makes the request cancellable by id (`notifications/cancelled`) and by the transport losing its client; returns the undo. */
  watch(): () => void {
    const { peer } = this.exchange;
    const unsubscribe = this.exchange.onClose?.((reason) => this.abort(reason));
    peer.inflight.add(this.info.requestId, this);
    return () => {
      unsubscribe?.();
      peer.inflight.remove(this);
    };
  }
}

/**
 * Starts `run` and calls `cleanup` once it settles, however it ends; the
 * caller gets `run`'s own promise. Used where an async function with
 * try/finally would add a step to every call.
 */
export function thenCleanUp<T>(run: () => Promise<T>, cleanup: () => void): Promise<T> {
  let running: Promise<T>;
  try {
    running = run();
  } catch (err) {
    cleanup();
    throw err;
  }
  running.then(cleanup, cleanup);
  return running;
}

/** The gateway upstream that serves the request, from its definition: the audit record's `upstream`, the span's attribute. */
export function upstreamOf(op: Operation): string | undefined {
  return op.upstream ?? (op.tool as CompiledTool | undefined)?.tool.upstream;
}

/** A pipeline stage: do its one job, then call `next` (or answer without it). */
export type Stage = (call: Operation, next: () => Promise<CallOutcome>) => Promise<CallOutcome>;
