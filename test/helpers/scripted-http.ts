import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Json = Record<string, any>;

export interface Exchange {
  method: 'GET' | 'POST' | 'DELETE' | string;
  headers: IncomingMessage['headers'];
  /** The JSON-RPC message POSTed, when there was one. */
  message?: Json;
  /** The request body as it came. */
  raw: string;
  /** When the server received it (performance.now()). */
  at: number;
}

/**
 * A raw Streamable HTTP server on 127.0.0.1 whose every answer the test
 * scripts: JSON, SSE streams written event by event, streams cut short. It
 * records every request, so a test can read what the client sent and when.
 */
export async function startScriptedHttp(handle: (req: IncomingMessage, res: ServerResponse, exchange: Exchange) => void | Promise<void>) {
  const exchanges: Exchange[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const exchange: Exchange = { method: req.method ?? '', headers: req.headers, at: performance.now(), raw: body };
      if (body) {
        try {
          exchange.message = JSON.parse(body) as Json;
        } catch {
          // the test sees the raw request only
        }
      }
      exchanges.push(exchange);
      open.add(res);
      res.on('close', () => open.delete(res));
      Promise.resolve(handle(req, res, exchange)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    url,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function json(res: ServerResponse, message: Json, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(message));
}

/** Starts an SSE response; write events with `event()`. */
export function sse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
}

/** One SSE event: fields in order, then the blank line that dispatches it. */
export function event(res: ServerResponse, fields: { id?: string; retry?: number; event?: string; data?: string | Json }): void {
  let text = '';
  if (fields.event !== undefined) text += `event: ${fields.event}\n`;
  if (fields.id !== undefined) text += `id: ${fields.id}\n`;
  if (fields.retry !== undefined) text += `retry: ${fields.retry}\n`;
  if (fields.data !== undefined) text += `data: ${typeof fields.data === 'string' ? fields.data : JSON.stringify(fields.data)}\n`;
  res.write(`${text}\n`);
}

export const LEGACY_INIT = (id: unknown) => ({
  jsonrpc: '2.0',
  id,
  result: { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'scripted', version: '1.0.0' } },
});

export const TOOLS = (id: unknown, names: string[] = ['slow']) => ({
  jsonrpc: '2.0',
  id,
  result: { tools: names.map((name) => ({ name, inputSchema: { type: 'object' } })) },
});
