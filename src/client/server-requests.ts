import { encodeError, encodeResult } from '../jsonrpc/encode.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../jsonrpc/types.js';
import { Method } from '../protocol/methods.js';

/**
 * The answer to a request the server sent us. Only legacy servers may send
 * requests (2025-11-25: ping, sampling, elicitation, roots); this client
 * answers `ping` and declines the rest, which it never advertised.
 */
export function answerServerRequest(request: JsonRpcRequest): string {
  if (request.method === Method.ping) return encodeResult(request.id, '{}');
  return encodeError(request.id, new RpcError(ErrorCode.MethodNotFound, 'Method not found: this client does not handle server requests'));
}
