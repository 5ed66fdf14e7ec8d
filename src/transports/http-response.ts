import { encodeError } from '../jsonrpc/encode.js';
import type { RpcError } from '../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../jsonrpc/types.js';
import type { Reply } from '../server/connection.js';

/** Response headers by name. */
export type ResponseHeaders = Record<string, string | number | string[] | undefined>;

/**
 * What the MCP endpoint writes an answer to. Node's ServerResponse has this
 * shape, so the Node adapter passes it as it is (no wrapper on the hot path);
 * the fetch face (http-fetch.ts) implements it with a Web Response whose
 * body, when the answer streams (SSE), is a ReadableStream. 'close' is the
 * answer being done, or the client gone.
 */
export interface HttpResponse {
  statusCode: number;
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  writeHead(status: number, headers?: ResponseHeaders): this;
  flushHeaders(): void;
  write(chunk: string): boolean;
  end(chunk?: string): this;
  once(event: 'close', listener: () => void): this;
  off(event: 'close', listener: () => void): this;
}

const encoder = new TextEncoder();
const nodeBuffer = (globalThis as { Buffer?: { byteLength(text: string): number } }).Buffer;

/** UTF-8 length of `text`: Node's native count where there is one (no copy), else encoded. */
export const utf8Length: (text: string) => number = nodeBuffer ? (text) => nodeBuffer.byteLength(text) : (text) => encoder.encode(text).byteLength;

export function send(res: HttpResponse, reply: Reply, extraHeaders?: Record<string, string>): void {
  // A rate-limited call's answer says when to come back (an SSE answer cannot: its headers are sent).
  if (reply.retryAfterSeconds !== undefined) extraHeaders = { ...extraHeaders, 'retry-after': String(reply.retryAfterSeconds) };
  const headers: ResponseHeaders = { 'content-type': 'application/json', 'content-length': utf8Length(reply.json) };
  // Added one by one, not spread: most answers have none, and a spread of nothing still costs a call.
  if (extraHeaders) for (const name in extraHeaders) headers[name] = extraHeaders[name];
  res.writeHead(reply.status, headers);
  res.end(reply.json);
}

export function rpcError(res: HttpResponse, err: RpcError, id?: JsonRpcRequest['id']): void {
  send(res, { json: encodeError(id, err), status: err.httpStatus });
}

export function plain(res: HttpResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
}
