import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, type AuthenticateRequest, type HttpHandler } from '../../src/http.js';
import { ToolServer } from '../../src/server/server.js';
import { memoryLogger, MODERN, modernMeta } from '../helpers/wire.js';

// What differs on the web-standard face: what it is given (a Request, no socket) and how a client
// going away is told (the body stream cancelled, not a socket closing). Everything else the two
// faces share runs on both (vitest.config.ts's fetch-face project).

const BASE = 'http://127.0.0.1:8787/mcp';
const listen = (id: number) =>
  new Request(BASE, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: modernMeta() } }),
  });

describe('the fetch face', () => {
  let handler: HttpHandler;
  const seen: AuthenticateRequest[] = [];
  beforeAll(() => {
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object' }, handler: () => 'ok' }],
    });
    handler = createHttpHandler(server, {
      maxStreams: 1,
      authenticate: (req) => {
        seen.push(req);
        return req.headers.authorization === 'Bearer alice' ? 'alice' : undefined;
      },
    });
  });
  afterAll(() => handler.close());

  it('gives the authenticate hook the Web Request, with the method, the path and query, and lower-cased headers', async () => {
    const request = new Request(`${BASE}?x=1`, { method: 'DELETE', headers: { Authorization: 'Bearer alice', 'X-Tenant': 'acme' } });
    const res = await handler.fetch(request);
    expect(res.status).toBe(405);
    const got = seen.at(-1)!;
    expect(got.request).toBe(request);
    expect(got.method).toBe('DELETE');
    expect(got.url).toBe('/mcp?x=1');
    expect(got.headers['x-tenant']).toBe('acme');
    // The Host the client sent; a Request without one is read from its URL.
    expect(got.headers.host).toBe('127.0.0.1:8787');
  });

  it('frees a stream slot when the reader cancels the SSE body (how a Worker learns the client left)', async () => {
    const auth = { authorization: 'Bearer alice' };
    const withAuth = (request: Request) => new Request(request, { headers: { ...Object.fromEntries(request.headers), ...auth } });
    const first = await handler.fetch(withAuth(listen(1)));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/event-stream');
    // The one slot is held: a second stream is refused.
    const refused = await handler.fetch(withAuth(listen(2)));
    expect([429, 503]).toContain(refused.status);
    await refused.text();
    await first.body!.cancel();
    let second: Response | undefined;
    for (let i = 0; i < 50 && second?.status !== 200; i++) {
      await second?.text();
      second = await handler.fetch(withAuth(listen(3)));
    }
    expect(second!.status).toBe(200);
    await second!.body!.cancel();
  });

  it('answers a Response without the hop-by-hop headers a Node response carries (the runtime owns the connection)', async () => {
    const res = await handler.fetch(new Request(BASE, { method: 'POST', headers: { authorization: 'Bearer alice', 'content-type': 'text/plain' }, body: 'x' }));
    expect(res.status).toBe(415);
    expect(res.headers.get('connection')).toBeNull();
    expect(res.headers.get('transfer-encoding')).toBeNull();
    expect((await res.json()).error.message).toMatch(/Content-Type/);
  });
});

describe('the web-standard core', () => {
  it('imports nothing of Node outside the Node adapter: the endpoint runs where Request, Response and web streams do', () => {
    const dir = join(import.meta.dirname, '../../src/transports');
    // The Node adapter and the listening server are the only HTTP files that may.
    const nodeSide = new Set([
      'http-node.ts',
      'http-node-body.ts',
      'http-server.ts',
      'http-connections.ts',
      'http-drain.ts',
      'http-limits.ts',
      'http-handler.ts',
    ]);
    const offenders = readdirSync(dir)
      .filter((file) => (file.startsWith('http-') || file === 'sse.ts' || file === 'client-address.ts' || file === 'stream-slots.ts') && !nodeSide.has(file))
      .filter((file) => /from 'node:/.test(readFileSync(join(dir, file), 'utf8').replace(/import type [^;]+;/g, '')));
    expect(offenders).toEqual([]);
    // The handler itself names Node's types only (erased): its runtime imports are the core's.
    const handlerSource = readFileSync(join(dir, 'http-handler.ts'), 'utf8');
    expect(handlerSource.match(/^import (?!type)[^;]*from 'node:[^']+';/gm)).toBeNull();
  });
});

describe('legacySessions: false (the stateless era alone, for a runtime that keeps nothing between requests)', () => {
  let handler: HttpHandler;
  beforeAll(() => {
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object' }, handler: () => 'ok' }],
    });
    handler = createHttpHandler(server, { legacySessions: false });
  });
  afterAll(() => handler.close());
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    handler.fetch(
      new Request(BASE, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      }),
    );

  it('answers initialize 400 UnsupportedProtocolVersion naming the stateless era, and mints no session', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const { error } = await res.json();
    expect(error.code).toBe(-32022);
    expect(error.data).toEqual({ supported: ['2026-07-28'], requested: '2025-11-25' });
    expect(error.message).toMatch(/stateless era/);
  });

  it('answers GET and DELETE 405, and serves modern requests with an Mcp-Session-Id ignored', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await handler.fetch(new Request(BASE, { method, headers: { 'mcp-session-id': 'x', accept: 'text/event-stream' } }));
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
    const res = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: modernMeta() } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo', 'mcp-session-id': 'made-up' },
    );
    expect(res.status).toBe(200);
    expect((await res.json()).result.content).toEqual([{ type: 'text', text: 'ok' }]);
  });
});
