import type { CallsInFlight } from '../calls-in-flight.js';
import type { CompiledTool } from '../compile-tool.js';
import { CallInputs, INPUT_REQUIRED, type InputRequiredResult } from '../inputs/call-inputs.js';
import type { RequestStateCodec, StateBinding } from '../inputs/request-state.js';
import { callerKeyOf, type Exchange } from '../exchange.js';
import type { ToolResult } from '../tool.js';
import type { ClientCapabilities, Implementation, LogLevel } from '../../protocol/meta.js';
import type { Era } from '../../protocol/versions.js';
import type { RequestId } from '../../jsonrpc/types.js';
import type { AuditReason } from '../../audit/record.js';

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

/** One `tools/call` as it moves through the pipeline. */
export class ToolCall {
  /** Set by the resolve stage. */
  tool!: CompiledTool;
  /** The arguments as the client sent them. */
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
  correlationId?: string;
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

  /** What a sealed `requestState` is bound to: this tool, these arguments, this caller. */
  get stateBinding(): StateBinding {
    return { tool: this.tool.name, args: this.args, principal: callerKeyOf(this.exchange) };
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
    const { peer } = this.exchange;
    const id = this.info.requestId;
    const unsubscribe = this.exchange.onClose?.((reason) => this.abort(reason));
    peer.inflight.add(id, this);
    all.add(this);
    return () => {
      unsubscribe?.();
      peer.inflight.remove(this);
      all.remove(this);
    };
  }

  /** The tool name the client asked for (valid or not). */
  get requestedName(): string {
    return typeof this.params.name === 'string' ? this.params.name : '';
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

/** A pipeline stage: do its one job, then call `next` (or answer without it). */
export type Stage = (call: ToolCall, next: () => Promise<CallOutcome>) => Promise<CallOutcome>;

/** Composes stages into one function, the way middleware composes (first stage outermost). */
export function compose(stages: readonly Stage[], terminal: (call: ToolCall) => Promise<CallOutcome>): (call: ToolCall) => Promise<CallOutcome> {
  return (call) => {
    // One `next` per call (not one closure per stage): each stage calls it at most once.
    let i = 0;
    const next = (): Promise<CallOutcome> => (i < stages.length ? stages[i++](call, next) : terminal(call));
    return next();
  };
}
