import type { CallInfo } from '../context.js';
import type { Exchange } from '../peer.js';
import type { ToolRegistry } from '../registry.js';
import { compose, ToolCall, type CallOutcome, type Stage } from './call.js';
import { resolveStage } from './resolve.js';
import { runHandler, type HandlerOptions } from './run-handler.js';
import { validateArgsStage } from './validate-args.js';

export interface PipelineOptions extends HandlerOptions {
  registry: ToolRegistry;
}

/**
 * The way of one `tools/call` (DESIGN.md): resolve the tool → validate the
 * arguments → run the handler → normalize and check the result. Built once per
 * server; each stage is a small function with one job.
 */
export class CallPipeline {
  private readonly run: (call: ToolCall) => Promise<CallOutcome>;

  constructor(options: PipelineOptions) {
    const stages: Stage[] = [resolveStage(options.registry), validateArgsStage];
    this.run = compose(stages, runHandler(options));
  }

  call(params: Record<string, unknown>, info: CallInfo, exchange: Exchange): Promise<CallOutcome> {
    return this.run(new ToolCall(params, info, exchange));
  }
}

export { ToolCall, type CallOutcome, type CallStatus, type Stage } from './call.js';
export { errorResult } from './results.js';
