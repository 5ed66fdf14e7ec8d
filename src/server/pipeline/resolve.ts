import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import { isPlainObject } from '../../protocol/content.js';
import { decodeHeaderValue, headerMatchesValue, valueAtPath } from '../../protocol/header-params.js';
import type { CompiledTool } from '../compile-tool.js';
import type { ToolRegistry } from '../registry.js';
import type { Stage } from './call.js';

/**
 * Finds the tool and reads the arguments. Only here do protocol errors arise
 * (tools.mdx "Error Handling": unknown tool and malformed requests).
 */
export function resolveStage(registry: ToolRegistry): Stage {
  return (call, next) => {
    const name = call.params.name;
    if (typeof name !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "name" must be a string');
    const tool = registry.get(name);
    if (!tool) throw unknownToolError(name);
    const args = call.params.arguments;
    if (args !== undefined && !isPlainObject(args)) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "arguments" must be an object');
    call.tool = tool;
    call.args = args ?? {};
    if (call.info.era === 'modern' && call.exchange.headers) checkMirroredHeaders(tool, call.args, call.exchange.headers);
    return next();
  };
}

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
