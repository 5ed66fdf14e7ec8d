import { ErrorCode, RpcError } from './errors.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from './types.js';

export type ParsedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse };

/**
 * Parses one JSON-RPC message and classifies it. Throws RpcError with
 * ParseError or InvalidRequest; `data.id` carries the id when it could be read.
 */
export function parseMessage(text: string): ParsedMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RpcError(ErrorCode.ParseError, 'Parse error: the message is not valid JSON');
  }
  return classifyMessage(value);
}

export function classifyMessage(value: unknown): ParsedMessage {
  if (Array.isArray(value)) {
    throw new RpcError(ErrorCode.InvalidRequest, 'Invalid Request: JSON-RPC batches are not supported; send one message at a time');
  }
  if (value === null || typeof value !== 'object') {
    throw new RpcError(ErrorCode.InvalidRequest, 'Invalid Request: a JSON-RPC message must be an object');
  }
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') {
    throw invalid('"jsonrpc" must be "2.0"', m.id);
  }
  const hasId = 'id' in m;
  if (typeof m.method === 'string') {
    if (m.params !== undefined && (m.params === null || typeof m.params !== 'object' || Array.isArray(m.params))) {
      throw invalid('"params" must be an object', m.id);
    }
    if (!hasId) return { kind: 'notification', message: m as unknown as JsonRpcNotification };
    if (!isRequestId(m.id)) throw invalid('"id" must be a string or an integer (never null)', undefined);
    return { kind: 'request', message: m as unknown as JsonRpcRequest };
  }
  if ('method' in m) throw invalid('"method" must be a string', m.id);
  if (hasId && ('result' in m || 'error' in m)) {
    return { kind: 'response', message: m as unknown as JsonRpcResponse };
  }
  throw invalid('the message is neither a request, a notification nor a response', m.id);
}

export function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
}

function invalid(why: string, id: unknown): RpcError {
  return new RpcError(ErrorCode.InvalidRequest, `Invalid Request: ${why}`, isRequestId(id) ? { id } : undefined);
}
