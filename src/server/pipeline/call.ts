import type { CompiledTool } from '../compile-tool.js';
import type { CallInfo } from '../context.js';
import type { Exchange } from '../peer.js';
import type { ToolResult } from '../tool.js';

/** How a call ended, for the audit trail and the logs. */
export type CallStatus =
  | 'ok' // the handler returned a result
  | 'tool_error' // the handler reported a failure (isError result or ToolError)
  | 'invalid_arguments'
  | 'refused' // a policy stage said no (rate limit, overload, approval declined, size)
  | 'timeout'
  | 'cancelled'
  | 'internal_error' // a bug: unexpected throw or invalid result
  | 'protocol_error'; // answered with a JSON-RPC error (unknown tool, header mismatch, …)

/** Undefined: the call was cancelled, nothing is sent. */
export type CallOutcome = ToolResult | undefined;

/** One `tools/call` as it moves through the pipeline. */
export class ToolCall {
  /** Set by the resolve stage. */
  tool!: CompiledTool;
  /** The arguments as the client sent them. */
  args: Record<string, unknown> = {};
  /** What the handler receives (a Standard Schema's parse output, or `args`). */
  handlerArgs: unknown;
  status: CallStatus = 'ok';
  correlationId?: string;
  readonly startedAt = performance.now();

  constructor(
    readonly params: Record<string, unknown>,
    readonly info: CallInfo,
    readonly exchange: Exchange,
  ) {}

  /** The tool name the client asked for (valid or not). */
  get requestedName(): string {
    return typeof this.params.name === 'string' ? this.params.name : '';
  }
}

/** A pipeline stage: do its one job, then call `next` (or answer without it). */
export type Stage = (call: ToolCall, next: () => Promise<CallOutcome>) => Promise<CallOutcome>;

/** Composes stages into one function, the way middleware composes (first stage outermost). */
export function compose(stages: readonly Stage[], terminal: (call: ToolCall) => Promise<CallOutcome>): (call: ToolCall) => Promise<CallOutcome> {
  return (call) => {
    const dispatch = (i: number): Promise<CallOutcome> => (i === stages.length ? terminal(call) : stages[i](call, () => dispatch(i + 1)));
    return dispatch(0);
  };
}
