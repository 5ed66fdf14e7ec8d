import type { CallInfo } from '../context.js';
import type { Exchange } from '../peer.js';
import type { ToolRegistry } from '../registry.js';
import { compose, ToolCall, type CallOutcome, type Stage } from './call.js';
import type { RequestStateCodec } from '../inputs/request-state.js';
import { approvalStage, type ApprovalMode } from './approval.js';
import { inputsStage } from './inputs.js';
import { resolveStage } from './resolve.js';
import { runHandler, type HandlerOptions } from './run-handler.js';
import { validateArgsStage } from './validate-args.js';

export interface PipelineOptions extends HandlerOptions {
  registry: ToolRegistry;
  requestState: RequestStateCodec;
  approval: ApprovalMode;
}

/**
 * The way of one `tools/call` (DESIGN.md): resolve the tool → validate the
 * arguments → open the input state → ask for approval when needed → run the
 * handler → normalize and check the result. Built once per server; each stage
 * is a small function with one job.
 */
export class CallPipeline {
  private readonly run: (call: ToolCall) => Promise<CallOutcome>;

  constructor(options: PipelineOptions) {
    const stages: Stage[] = [resolveStage(options.registry), validateArgsStage, inputsStage(options.requestState), approvalStage(options.approval)];
    this.run = compose(stages, runHandler(options));
  }

  async call(params: Record<string, unknown>, info: CallInfo, exchange: Exchange): Promise<CallOutcome> {
    const call = new ToolCall(params, info, exchange);
    const untrack = call.track();
    try {
      return await this.run(call);
    } finally {
      untrack();
    }
  }
}

export { ToolCall, type CallOutcome, type CallStatus, type Stage } from './call.js';
export { errorResult } from './results.js';
export type { ApprovalMode } from './approval.js';
