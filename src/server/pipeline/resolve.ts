import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import { isPlainObject } from '../../protocol/content.js';
import { decodeHeaderValue, headerMatchesValue, valueAtPath } from '../../protocol/header-params.js';
import type { CompiledTool } from '../compile-tool.js';
import type { ToolRegistry } from '../registry.js';
import type { Stage } from './operation.js';

/**
 * Finds the tool. With `readArgumentsStage` the only place protocol errors
 * arise (tools.mdx "Error Handling": unknown tool and malformed requests).
 */
export function resolveStage(registry: ToolRegistry): Stage {
  return (call, next) => {
    const name = call.params.name;
    if (typeof name !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "name" must be a string');
    call.target = name;
    const tool = registry.get(name);
    if (!tool) throw unknownToolError(name);
    call.tool = tool;
    return next();
  };
}

/**
 * Reads the arguments and checks the mirrored Mcp-Param-* headers. Runs after
 * the authorize stage: a tool the caller may not know of must answer exactly
 * as a missing one, so nothing about it (its header parameters included) is
 * looked at before then.
 */
export const readArgumentsStage: Stage = (call, next) => {
  const args = call.params.arguments;
  if (args !== undefined && !isPlainObject(args)) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "arguments" must be an object');
  call.args = args ?? {};
  if (call.info.era === 'modern' && call.exchange.headers) checkMirroredHeaders(call.tool, call.args, call.exchange.headers);
  return next();
};

/** The answer for a tool that does not exist, or that the caller may not know of: one error, so the two cannot be told apart. */
export function unknownToolError(name: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${name.length > 128 ? `${name.slice(0, 128)}…` : name}`);
}

/** Mcp-Param-* headers must be present and equal to the body (streamable-http.mdx "Server Behavior for Custom Headers"). */
function checkMirroredHeaders(tool: CompiledTool, args: Record<string, unknown>, headers: Readonly<Record<string, string | string[] | undefined>>): void {
  for (const param of tool.headerParams) {
    const value = valueAtPath(args, param.path);
    if (value === undefined) continue;
    const raw = headers[`mcp-param-${param.name.toLowerCase()}`];
    if (typeof raw !== 'string') {
      throw headerMismatch(`required header Mcp-Param-${param.name} is missing for argument "${param.path.join('.')}"`);
    }
    const decoded = decodeHeaderValue(raw.trim());
    if (decoded === undefined) throw headerMismatch(`Mcp-Param-${param.name} contains invalid characters`);
    if (!headerMatchesValue(decoded, value)) throw headerMismatch(`Mcp-Param-${param.name} header value does not match argument "${param.path.join('.')}"`);
  }
}

function headerMismatch(detail: string): RpcError {
  return new RpcError(ErrorCode.HeaderMismatch, `Header mismatch: ${detail}`, undefined, 400);
}
