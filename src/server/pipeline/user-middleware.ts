import { RpcError } from '../../jsonrpc/errors.js';
import { ToolError } from '../../protocol/tool-error.js';
import type { Logger } from '../../runtime/logger.js';
import { RequestMiddlewareContext, type ToolCallMiddlewareContext, type AnyMiddleware } from '../middleware.js';
import { compose } from '../compose.js';
import type { ToolAnnotations } from '../tool.js';
import type { CallOutcome, Stage, Operation } from './operation.js';
import { errorResult, internalFailure } from './results.js';

/** The context a `tools/call` middleware gets: the shared one, with the tool, and the call's own signal (it aborts on cancel and timeout). */
class ToolCallContext extends RequestMiddlewareContext<CallOutcome> implements ToolCallMiddlewareContext {
  declare readonly method: 'tools/call';
  declare params: { name: string; arguments: Record<string, unknown> };
  private readonly given: Record<string, unknown>;

  constructor(
    private readonly call: Operation,
    next: () => Promise<CallOutcome>,
  ) {
    const { info } = call;
    const given = call.handlerArgs as Record<string, unknown>;
    super('tools/call', info.era, call.exchange, call.params, info.requestId, info, { name: call.tool.name, arguments: given }, next);
    this.given = given;
  }

  get tool(): { name: string; title?: string; annotations?: ToolAnnotations; inputSchema: Record<string, unknown> } {
    const { name, title, annotations } = this.call.tool.tool;
    return { name, title, annotations, inputSchema: this.call.tool.inputSchema };
  }

  override get signal(): AbortSignal {
    return this.call.signal;
  }

  /**
   * Before the rest of the pipeline runs: arguments a middleware changed are
   * what the handler gets, what the user is asked to approve, what a sealed
   * requestState is bound to and what the audit record keeps (not validated
   * again: the middleware is the server's own code).
   */
  override proceed(): Promise<CallOutcome> {
    const args = this.params?.arguments;
    if (args !== this.given) {
      this.call.handlerArgs = args;
      this.call.args = (args ?? {}) as Record<string, unknown>;
    }
    return super.proceed();
  }
}

/**
 * The user middleware of `tools/call` (server.use), one stage of the call
 * pipeline: after the tool is found and authorized, the caller rate-limited
 * and the arguments validated, before input requests, approval, the
 * concurrency slot and the handler (docs/middleware.md has the picture).
 * A ToolError thrown by a middleware is an isError result, an RpcError the
 * JSON-RPC error; anything else is an internal failure (a correlation id for
 * the client, the detail in the log). The audit stage, outside, records it all.
 */
export function userMiddlewareStage(chain: readonly AnyMiddleware[], logger: Logger): Stage {
  const run = compose<ToolCallContext, CallOutcome>(chain, (ctx) => ctx.proceed(), true);
  return (call, next) =>
    run(new ToolCallContext(call, next)).catch((err: unknown): CallOutcome => {
      if (err instanceof RpcError) throw err;
      if (err instanceof ToolError) {
        call.status = 'tool_error';
        const result = errorResult(err.message);
        if (err.structuredContent !== undefined) result.structuredContent = err.structuredContent;
        return result;
      }
      return internalFailure(call, err, logger);
    });
}
