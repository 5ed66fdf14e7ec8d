import { randomUUID } from 'node:crypto';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { isPlainObject } from '../protocol/content.js';
import { decodeHeaderValue, headerMatchesValue, valueAtPath } from '../protocol/header-params.js';
import { parseWithStandard } from '../schema/standard.js';
import type { CompiledTool } from './compile-tool.js';
import { CallContext, MissingClientCapability, type CallInfo } from './context.js';
import type { Logger } from './logger.js';
import { normalizeResult } from './normalize-result.js';
import type { Exchange } from './peer.js';
import type { ToolRegistry } from './registry.js';
import { ToolError, type ToolResult } from './tool.js';

export interface CallOptions {
  registry: ToolRegistry;
  logger: Logger;
  /** Default time a handler may run before its call fails (per tool: `timeoutMs`). */
  timeoutMs: number;
}

/** Undefined means: the call was cancelled, send nothing. */
export type CallOutcome = ToolResult | undefined;

/**
 * The way of one `tools/call`: find the tool → check mirrored headers →
 * validate arguments → run the handler (signal, timeout) → normalize →
 * validate structured output. Refusals the model can fix are `isError`
 * results; only an unknown tool or a malformed request is a protocol error.
 */
export async function callTool(params: Record<string, unknown>, info: CallInfo, exchange: Exchange, options: CallOptions): Promise<CallOutcome> {
  const tool = findTool(params, options.registry);
  const args = readArguments(params);
  if (info.era === 'modern' && exchange.headers) checkMirroredHeaders(tool, args, exchange.headers);

  const valid = tool.validateArgs(args);
  if (!valid.ok) return errorResult(`Invalid arguments for tool ${tool.name}:\n- ${valid.problems.join('\n- ')}`);
  let handlerArgs: unknown = args;
  if (tool.standardInput) {
    const parsed = await parseWithStandard(tool.standardInput, args, 'arguments');
    if (!parsed.ok) return errorResult(`Invalid arguments for tool ${tool.name}:\n- ${parsed.problems.join('\n- ')}`);
    handlerArgs = parsed.value;
  }
  return runHandler(tool, handlerArgs, info, exchange, options);
}

function findTool(params: Record<string, unknown>, registry: ToolRegistry): CompiledTool {
  const name = params.name;
  if (typeof name !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "name" must be a string');
  const tool = registry.get(name);
  if (!tool) throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${name.length > 128 ? `${name.slice(0, 128)}…` : name}`);
  return tool;
}

function readArguments(params: Record<string, unknown>): Record<string, unknown> {
  const args = params.arguments;
  if (args === undefined) return {};
  if (!isPlainObject(args)) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "arguments" must be an object');
  return args;
}

/** Mcp-Param-* headers must be present and equal to the body (streamable-http.mdx "Server Behavior for Custom Headers"). */
function checkMirroredHeaders(tool: CompiledTool, args: Record<string, unknown>, headers: Readonly<Record<string, string | string[] | undefined>>): void {
  for (const param of tool.headerParams) {
    const headerName = `mcp-param-${param.name.toLowerCase()}`;
    const raw = headers[headerName];
    const value = valueAtPath(args, param.path);
    if (value === undefined) continue;
    if (typeof raw !== 'string') {
      throw headerMismatch(`Header mismatch: required header Mcp-Param-${param.name} is missing for argument "${param.path.join('.')}"`);
    }
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) throw headerMismatch(`Header mismatch: Mcp-Param-${param.name} contains invalid characters`);
    if (!headerMatchesValue(decoded, value)) {
      throw headerMismatch(`Header mismatch: Mcp-Param-${param.name} header value does not match argument "${param.path.join('.')}"`);
    }
  }
}

function headerMismatch(message: string): RpcError {
  return new RpcError(ErrorCode.HeaderMismatch, message, undefined, 400);
}

async function runHandler(tool: CompiledTool, args: unknown, info: CallInfo, exchange: Exchange, options: CallOptions): Promise<CallOutcome> {
  const controller = new AbortController();
  const onPeerAbort = () => controller.abort(exchange.signal?.reason);
  exchange.signal?.addEventListener('abort', onPeerAbort, { once: true });
  exchange.peer.inflight.set(info.requestId, controller);
  const ctx = new CallContext(controller.signal, info, exchange, options.logger, tool.name);
  const timeoutMs = tool.tool.timeoutMs ?? options.timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const cancelled = new Promise<'cancelled' | 'timeout'>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve(timedOut ? 'timeout' : 'cancelled'), { once: true });
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    timer.unref?.();
  });
  try {
    const raced = await Promise.race([Promise.resolve().then(() => tool.tool.handler(args as never, ctx)).then((value) => ({ value })), cancelled]);
    if (raced === 'cancelled') return undefined;
    if (raced === 'timeout') return errorResult(`Tool ${tool.name} timed out after ${formatDuration(timeoutMs)}; the call was stopped. Retry with a smaller request, or ask for a longer timeout.`);
    return finishResult(tool, raced.value, options.logger);
  } catch (err) {
    if (controller.signal.aborted && !timedOut) return undefined;
    if (err instanceof MissingClientCapability) return missingCapability(tool, err, info);
    return failure(tool, err, options.logger);
  } finally {
    ctx.finish();
    clearTimeout(timer);
    exchange.signal?.removeEventListener('abort', onPeerAbort);
    if (exchange.peer.inflight.get(info.requestId) === controller) exchange.peer.inflight.delete(info.requestId);
  }
}

function finishResult(tool: CompiledTool, value: unknown, logger: Logger): ToolResult {
  const normalized = normalizeResult(value);
  if (!normalized.ok) return internalFailure(tool, `handler returned an invalid result: ${normalized.problem}`, logger);
  const result = normalized.result;
  if (tool.validateOutput && !result.isError) {
    if (result.structuredContent === undefined) {
      return internalFailure(tool, 'the tool declares an outputSchema but returned no structuredContent', logger);
    }
    const check = tool.validateOutput(result.structuredContent);
    if (!check.ok) return internalFailure(tool, `structuredContent does not match the outputSchema: ${check.problems.join('; ')}`, logger);
  }
  return result;
}

function failure(tool: CompiledTool, err: unknown, logger: Logger): ToolResult {
  if (err instanceof ToolError) {
    const result = errorResult(err.message);
    if (err.structuredContent !== undefined) result.structuredContent = err.structuredContent;
    return result;
  }
  return internalFailure(tool, err, logger);
}

/** -32021 for modern clients (HTTP 400); legacy clients read why in an isError result. */
function missingCapability(tool: CompiledTool, err: MissingClientCapability, info: CallInfo): ToolResult {
  if (info.era === 'modern') {
    throw new RpcError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${err.capability}`, {
      requiredCapabilities: { [err.capability]: {} },
    });
  }
  return errorResult(`Tool ${tool.name} needs a client that supports ${err.capability}; this client did not declare it.`);
}

/** A server-side bug: the client sees a correlation id, the log sees everything. */
function internalFailure(tool: CompiledTool, detail: unknown, logger: Logger): ToolResult {
  const correlationId = randomUUID();
  logger.error({ correlationId, tool: tool.name, err: detail instanceof Error ? detail : undefined, detail: detail instanceof Error ? undefined : detail }, 'tool call failed');
  return errorResult(`Tool ${tool.name} failed because of an internal error (correlation id ${correlationId}). The server log has the details; retrying may not help.`);
}

export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}
