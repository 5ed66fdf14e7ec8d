import { serveHttp, type HttpServeOptions, type HttpServerHandle } from '../../src/transports/http-server.js';
import type { ToolServer } from '../../src/server/server.js';
import { MODERN, modernMeta } from './wire.js';
import { httpFace, serveFetchFace } from './fetch-face.js';

/**
 * A real HTTP server on 127.0.0.1 (free port) plus raw request helpers: serveHttp (the Node
 * adapter), or, in vitest.config.ts's fetch-face project, the endpoint's fetch face behind Hono's
 * Node adapter (fetch-face.ts).
 */
export async function startHttp(server: ToolServer, options: HttpServeOptions = {}) {
  const handle: HttpServerHandle =
    httpFace() === 'fetch' ? await serveFetchFace(server, { port: 0, ...options }) : await serveHttp(server, { port: 0, ...options });
  let nextId = 1;
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(handle.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  /** A well-formed modern request with the standard headers. */
  const modern = (method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}, meta: Record<string, unknown> = {}) => {
    const mirrored = method === 'resources/read' ? params.uri : params.name;
    const name: Record<string, string> = typeof mirrored === 'string' ? { 'mcp-name': mirrored } : {};
    return post(
      { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: modernMeta(meta) } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...name, ...headers },
    );
  };
  /** Opens a legacy session; returns its id. */
  const initialize = async (protocolVersion = '2025-11-25') => {
    const res = await post({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const sessionId = res.headers.get('mcp-session-id');
    if (!sessionId) throw new Error(`initialize returned no session id (status ${res.status})`);
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion });
    return sessionId;
  };
  const legacy = (sessionId: string, method: string, params?: Record<string, unknown>) =>
    post({ jsonrpc: '2.0', id: nextId++, method, ...(params ? { params } : {}) }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
  return { handle, url: handle.url, post, modern, initialize, legacy, close: () => handle.close() };
}

/** Parses an SSE body into its JSON messages. */
export function sseMessages(body: string): Array<Record<string, any>> {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
}

/** node:http request, for headers fetch will not send (Host). */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return import('node:http').then(
    ({ request }) =>
      new Promise((resolve, reject) => {
        const req = request(url, { method: options.method ?? 'POST', headers: options.headers }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end(options.body);
      }),
  );
}

/** Reads SSE messages from a streaming response until `until` says enough. */
export async function readSse(res: Response, until: (messages: Array<Record<string, any>>) => boolean): Promise<Array<Record<string, any>>> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const messages = () => sseMessages(text);
  while (!until(messages())) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return messages();
}
