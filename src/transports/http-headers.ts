import type { RequestHeaders as IncomingHttpHeaders } from './http-request.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../jsonrpc/types.js';
import { decodeHeaderValue, NAMED_PARAM } from '../protocol/header-params.js';
import { getMeta, META } from '../protocol/meta.js';

/**
 * Modern requests mirror body fields into headers so intermediaries can route
 * without parsing; the server MUST reject any disagreement with -32020 and
 * HTTP 400 (streamable-http.mdx "Server Validation").
 */
export function checkStandardHeaders(headers: IncomingHttpHeaders, request: Pick<JsonRpcRequest, 'method' | 'params'>): void {
  const versionHeader = single(headers['mcp-protocol-version'], 'MCP-Protocol-Version');
  const bodyVersion = getMeta(request.params)?.[META.protocolVersion];
  if (versionHeader === undefined) throw mismatch('required header MCP-Protocol-Version is missing');
  if (typeof bodyVersion === 'string' && versionHeader !== bodyVersion) {
    throw mismatch(`MCP-Protocol-Version header value '${clip(versionHeader)}' does not match body value '${clip(bodyVersion)}'`);
  }
  const methodHeader = single(headers['mcp-method'], 'Mcp-Method');
  if (methodHeader === undefined) throw mismatch('required header Mcp-Method is missing');
  if (methodHeader !== request.method) {
    throw mismatch(`Mcp-Method header value '${clip(methodHeader)}' does not match body value '${clip(request.method)}'`);
  }
  const field = NAMED_PARAM[request.method];
  if (!field) return;
  const rawName = single(headers['mcp-name'], 'Mcp-Name');
  if (rawName === undefined) throw mismatch('required header Mcp-Name is missing');
  const name = decodeHeaderValue(rawName);
  if (name === undefined) throw mismatch('Mcp-Name header contains invalid characters or bad base64');
  const bodyName = request.params?.[field];
  if (name !== bodyName) throw mismatch(`Mcp-Name header value '${clip(name)}' does not match body value '${clip(String(bodyName))}'`);
}

function single(value: string | string[] | undefined, name: string): string | undefined {
  if (Array.isArray(value)) throw mismatch(`header ${name} must appear once`);
  return value?.trim();
}

function mismatch(detail: string): RpcError {
  return new RpcError(ErrorCode.HeaderMismatch, `Header mismatch: ${detail}`, undefined, 400);
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}
