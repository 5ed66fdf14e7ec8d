import { redactArguments } from '../audit/redact.js';
import { RpcError } from '../jsonrpc/errors.js';
import { createLogger } from '../runtime/logger.js';
import type { MiddlewareContext, ToolCallMiddlewareContext, AnyMiddleware } from '../server/middleware.js';
import { recordedId, recordedText } from '../jsonrpc/recorded.js';

/** What requestLogging writes to: pino, or anything with pino's `info(object, message)`. */
export interface RequestLogger {
  info(fields: Record<string, unknown>, message: string): void;
}

export interface RequestLoggingOptions {
  /** Where the lines go (default: a pino logger on stderr, as the server's own). */
  logger?: RequestLogger;
  /** Log the request's arguments too (tools/call arguments, a prompt's arguments), secrets redacted as in the audit trail. Default false. */
  arguments?: boolean;
  /** The message of each line (default 'request'). */
  message?: string;
}

/**
 * Structured request logging: one line per request, when it ends: method,
 * era, caller, request id, what it named (tool, prompt, URI), duration and
 * outcome (`ok`, `tool_error` for an isError result, `error` with its code,
 * `cancelled`). No arguments unless `arguments: true`, and then with the
 * values a tool's schema marks secret redacted.
 *
 *   server.use(requestLogging());
 *
 * Like all user middleware it sees the requests that reach its place in the
 * pipeline (docs/middleware.md): tools/call, prompts/get, resources/read and
 * completion/complete once their built-in checks passed (a request refused
 * as unknown, unauthorized, rate-limited or invalid is in the audit trail,
 * not in this log).
 */
export function requestLogging(options: RequestLoggingOptions = {}): AnyMiddleware {
  const logger = options.logger ?? createLogger();
  const message = options.message ?? 'request';
  const withArguments = options.arguments === true;
  return async (ctx: MiddlewareContext, next) => {
    const startedAt = performance.now();
    const fields: Record<string, unknown> = {
      method: recordedText(ctx.method),
      era: ctx.era,
      // Every value a client chose is bounded (jsonrpc/recorded.ts), as the audit trail bounds it.
      principal: ctx.caller.method === 'anonymous' ? null : recordedText(ctx.caller.id),
      ...(ctx.caller.tenant !== undefined ? { tenant: recordedText(ctx.caller.tenant) } : {}),
      requestId: recordedId(ctx.requestId),
      transport: ctx.transport,
    };
    const target = targetOf(ctx.params);
    if (target !== undefined) fields.target = target;
    if (withArguments && ctx.params?.arguments !== undefined)
      fields.arguments = redactArguments(ctx.params.arguments, (ctx as Partial<ToolCallMiddlewareContext>).tool?.inputSchema, { maxStringChars: 1024 });
    try {
      const result = await next();
      fields.outcome = result === undefined ? 'cancelled' : (result as { isError?: unknown }).isError === true ? 'tool_error' : 'ok';
      return result;
    } catch (err) {
      fields.outcome = 'error';
      if (err instanceof RpcError) fields.errorCode = err.code;
      throw err;
    } finally {
      fields.durationMs = Math.round((performance.now() - startedAt) * 1000) / 1000;
      try {
        logger.info(fields, message);
      } catch {
        // A logger that throws must not change the answer.
      }
    }
  };
}

/** The tool or prompt name, or the resource URI, a request names. */
function targetOf(params: Record<string, unknown> | undefined): string | undefined {
  const named = params?.name ?? params?.uri;
  return typeof named === 'string' ? recordedText(named) : undefined;
}
