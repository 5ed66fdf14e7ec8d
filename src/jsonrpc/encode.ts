import { boundedError } from './error-bounds.js';
import type { RpcError } from './errors.js';
import type { RequestId } from './types.js';

/**
 * Serializers that splice pre-serialized JSON. Results that never change
 * (tool lists, discover) are serialized once and reused for every response.
 */
export function encodeResult(id: RequestId, resultJson: string): string {
  // A number id (the usual one) is its own JSON text: no JSON.stringify call (each sets up a builder of its own).
  return `{"jsonrpc":"2.0","id":${typeof id === 'number' && Number.isFinite(id) ? String(id) : JSON.stringify(id)},"result":${resultJson}}`;
}

/** Every error's message and data are bounded here, whatever built them (error-bounds.ts). */
export function encodeError(id: RequestId | null | undefined, error: RpcError): string {
  const idPart = id === undefined || id === null ? '' : `"id":${JSON.stringify(id)},`;
  return `{"jsonrpc":"2.0",${idPart}"error":${JSON.stringify(boundedError(error.toJSON()))}}`;
}

export function encodeNotification(method: string, params: unknown): string {
  return params === undefined
    ? `{"jsonrpc":"2.0","method":${JSON.stringify(method)}}`
    : `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
}

export function encodeRequest(id: RequestId, method: string, params: unknown): string {
  return params === undefined
    ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)}}`
    : `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
}
