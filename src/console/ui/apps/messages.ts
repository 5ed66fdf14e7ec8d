/**
 * JSON-RPC 2.0 checks for what an MCP App posts to the console. Everything
 * from the frame is hostile until it passes here: its shape, its size, the
 * length of its method name and id.
 */

export type JsonRpcId = string | number;
export type JsonObject = Record<string, unknown>;

export type AppMessage =
  | { kind: 'request'; id: JsonRpcId; method: string; params: JsonObject }
  | { kind: 'notification'; method: string; params: JsonObject }
  | { kind: 'response'; id: JsonRpcId; result?: JsonObject; error?: { code: number; message: string } }
  /** Not JSON-RPC 2.0; `id` is set when one could be read, so the app can be told. */
  | { kind: 'invalid'; id?: JsonRpcId; why: string };

/** Default largest message accepted from an app (its JSON text), 1 MiB. */
export const DEFAULT_MAX_APP_MESSAGE_BYTES = 1024 * 1024;
const MAX_METHOD_LENGTH = 128;
const MAX_ID_LENGTH = 128;

export const JSONRPC_INVALID_REQUEST = -32600;
export const JSONRPC_METHOD_NOT_FOUND = -32601;
export const JSONRPC_INVALID_PARAMS = -32602;
export const JSONRPC_INTERNAL_ERROR = -32603;

export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function readId(value: unknown): JsonRpcId | undefined {
  if (typeof value === 'string' && value.length <= MAX_ID_LENGTH) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  return undefined;
}

/**
 * Classifies one posted message. `data` is what structured clone delivered
 * (any value, possibly huge or cyclic); its JSON length is measured first.
 */
export function parseAppMessage(data: unknown, maxBytes = DEFAULT_MAX_APP_MESSAGE_BYTES): AppMessage {
  let text: string | undefined;
  try {
    text = JSON.stringify(data);
  } catch {
    return { kind: 'invalid', why: 'not JSON' };
  }
  if (text === undefined) return { kind: 'invalid', why: 'not JSON' };
  // UTF-16 length is a lower bound of the UTF-8 size; 3x bounds it from above.
  if (text.length > maxBytes || new TextEncoder().encode(text).length > maxBytes) return { kind: 'invalid', why: `larger than ${maxBytes} bytes` };
  // From here on the JSON copy is what counts: no getters, prototypes or non-JSON values survive it.
  const message: unknown = JSON.parse(text);
  if (!isJsonObject(message) || message.jsonrpc !== '2.0') return { kind: 'invalid', why: 'not a JSON-RPC 2.0 object' };
  const hasId = 'id' in message;
  const id = readId(message.id);
  if (hasId && id === undefined) return { kind: 'invalid', why: 'id must be a string or an integer' };
  if ('method' in message) {
    const { method, params } = message;
    if (typeof method !== 'string' || method === '' || method.length > MAX_METHOD_LENGTH) return { kind: 'invalid', id, why: 'method must be a short string' };
    if (params !== undefined && !isJsonObject(params)) return { kind: 'invalid', id, why: 'params must be an object' };
    const p = params ?? {};
    return id === undefined ? { kind: 'notification', method, params: p } : { kind: 'request', id, method, params: p };
  }
  if (id === undefined) return { kind: 'invalid', why: 'a response needs an id' };
  if (isJsonObject(message.result)) return { kind: 'response', id, result: message.result };
  const error = message.error;
  if (isJsonObject(error) && typeof error.code === 'number' && typeof error.message === 'string') {
    return { kind: 'response', id, error: { code: error.code, message: error.message.slice(0, 1000) } };
  }
  return { kind: 'invalid', id, why: 'neither a request, a notification nor a response' };
}
