import type { OutgoingHttpHeaders } from 'node:http';
import { encodeError } from '../jsonrpc/encode.js';
import type { RpcError } from '../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../jsonrpc/types.js';
import type { Reply } from '../server/connection.js';

/**
 * What the MCP endpoint writes an answer to: the part of Node's
 * ServerResponse it uses, so that a ServerResponse serves as it is (no
 * wrapper on the hot path) and the fetch adapter (http-fetch.ts) can stand
 * in for one with a Web Response.
 */
export interface HttpResponse {
  statusCode: number;
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  writeHead(status: number, headers?: OutgoingHttpHeaders): this;
  flushHeaders(): void;
  write(chunk: string): boolean;
  end(chunk?: string): this;
  once(event: 'close', listener: () => void): this;
  off(event: 'close', listener: () => void): this;
}

export function send(res: HttpResponse, reply: Reply, extraHeaders: Record<string, string> = {}): void {
  // A rate-limited call's answer says when to come back (an SSE answer cannot: its headers are sent).
  if (reply.retryAfterSeconds !== undefined) extraHeaders = { ...extraHeaders, 'retry-after': String(reply.retryAfterSeconds) };
  res.writeHead(reply.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply.json), ...extraHeaders });
  res.end(reply.json);
}

export function rpcError(res: HttpResponse, err: RpcError, id?: JsonRpcRequest['id']): void {
  send(res, { json: encodeError(id, err), status: err.httpStatus });
}

export function plain(res: HttpResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
}
