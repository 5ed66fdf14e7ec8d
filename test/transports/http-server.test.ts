import { afterEach, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { rawRequest, startHttp, sseMessages } from '../helpers/http.js';
import { until } from '../helpers/until.js';
import { memoryLogger, MODERN, throwingLogger } from '../helpers/wire.js';

let http: Awaited<ReturnType<typeof startHttp>>;
afterEach(() => http?.close());

function makeServer() {
  const server = new ToolServer({ name: 'http-test', logger: memoryLogger().logger });
  server.tools.add(
    {
      name: 'echo',
      description: 'Echoes text.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      handler: ({ text }) => text,
    },
    {
      name: 'count',
      description: 'Counts to three with progress.',
      inputSchema: { type: 'object' },
      handler: async (_a, ctx) => {
        for (let i = 1; i <= 3; i++) {
          ctx.progress(i, 3);
          await new Promise((r) => setTimeout(r, 5));
        }
        return 'counted';
      },
    },
    {
      name: 'regional',
      description: 'Header-mirrored argument.',
      inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
      handler: ({ region }) => `region=${region}`,
    },
    {
      name: 'hang',
      description: 'Waits until cancelled.',
      inputSchema: { type: 'object' },
      handler: (_a, ctx) =>
        new Promise((resolve) => {
          hangStarted = true;
          ctx.signal.addEventListener('abort', () => {
            hangAborted = true;
            resolve('late');
          });
        }),
    },
  );
  return server;
}
let hangAborted = false;
let hangStarted = false;

describe('Streamable HTTP, modern era', () => {
  it('answers a call with JSON and the server identity in _meta', async () => {
    http = await startHttp(makeServer());
    const res = await http.modern('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = await res.json();
    expect(body.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'hi' }],
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'http-test' } },
    });
  });

  it('still answers when the logger throws while reporting a failure', async () => {
    const server = new ToolServer({ name: 'http-test', logger: throwingLogger(), audit: false });
    server.tools.add({
      name: 'fail',
      description: 'Throws.',
      inputSchema: { type: 'object' },
      handler: () => {
        throw new Error('boom');
      },
    });
    http = await startHttp(server);
    const res = await http.modern('tools/call', { name: 'fail', arguments: {} });
    expect(res.status).toBe(500);
    expect((await res.json()).error).toEqual({ code: -32603, message: 'Internal error' });
  });

  it('streams progress over SSE before the final response', async () => {
    http = await startHttp(makeServer());
    const res = await http.modern('tools/call', { name: 'count', arguments: {} }, {}, { progressToken: 'p1' });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const messages = sseMessages(await res.text());
    expect(messages.map((m) => m.method ?? 'response')).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress', 'response']);
    expect(messages[3].result.content[0].text).toBe('counted');
  });

  it.each([
    ['a missing MCP-Protocol-Version header', { 'mcp-protocol-version': '' }, /MCP-Protocol-Version is missing/],
    ['a version header that disagrees with _meta', { 'mcp-protocol-version': '2025-11-25' }, /does not match body value '2026-07-28'/],
    ['a missing Mcp-Method header', { 'mcp-method': '' }, /Mcp-Method is missing/],
    ['an Mcp-Method that differs in case', { 'mcp-method': 'TOOLS/CALL' }, /Mcp-Method header value/],
    ['an Mcp-Name naming another tool', { 'mcp-name': 'other' }, /Mcp-Name header value 'other'/],
  ])('rejects %s with -32020 and HTTP 400', async (_label, headers, message) => {
    http = await startHttp(makeServer());
    const cleaned = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== ''));
    const drop = Object.entries(headers)
      .filter(([, v]) => v === '')
      .map(([k]) => k);
    const res = await http.post(
      {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: {
          name: 'echo',
          arguments: { text: 'x' },
          _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      },
      Object.fromEntries(
        Object.entries({ 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo', ...cleaned }).filter(([k]) => !drop.includes(k)),
      ),
    );
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.id).toBe(9);
    expect(body.error.code).toBe(-32020);
    expect(body.error.message).toMatch(message);
  });

  it('accepts a base64-encoded Mcp-Name and surrounding whitespace', async () => {
    http = await startHttp(makeServer());
    const b64 = `=?base64?${Buffer.from('echo').toString('base64')}?=`;
    expect((await http.modern('tools/call', { name: 'echo', arguments: { text: 'x' } }, { 'mcp-name': b64 })).status).toBe(200);
    expect((await http.modern('tools/call', { name: 'echo', arguments: { text: 'x' } }, { 'mcp-name': '  echo  ' })).status).toBe(200);
  });

  it('checks Mcp-Param headers of x-mcp-header arguments against the body', async () => {
    http = await startHttp(makeServer());
    const call = (headers: Record<string, string>) => http.modern('tools/call', { name: 'regional', arguments: { region: 'us-west1' } }, headers);
    expect((await call({ 'mcp-param-region': 'us-west1' })).status).toBe(200);
    expect((await call({ 'mcp-param-region': '=?base64?dXMtd2VzdDE=?=' })).status).toBe(200);
    const badHeaders: Array<Record<string, string>> = [{}, { 'mcp-param-region': 'eu-central1' }, { 'mcp-param-region': '=?base64?dXMtd2VzdDE?=' }];
    for (const bad of badHeaders) {
      const res = await call(bad);
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe(-32020);
    }
  });

  it('answers unknown and removed methods with 404 and -32601', async () => {
    http = await startHttp(makeServer());
    for (const method of ['ping', 'initialize', 'no/such']) {
      const res = await http.modern(method);
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe(-32601);
    }
  });

  it('answers a missing envelope with 400 and -32602, and an unknown version with 400 and -32022', async () => {
    http = await startHttp(makeServer());
    const missing = await http.post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
    );
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.code).toBe(-32602);
    const unknown = await http.post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 'v9', 'io.modelcontextprotocol/clientCapabilities': {} } },
      },
      { 'mcp-protocol-version': 'v9', 'mcp-method': 'tools/list' },
    );
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error).toMatchObject({ code: -32022, data: { supported: [MODERN], requested: 'v9' } });
  });

  it('treats a closed response stream as cancellation', async () => {
    http = await startHttp(makeServer());
    hangAborted = false;
    hangStarted = false;
    const controller = new AbortController();
    const res = fetch(http.url, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'hang',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'h',
        method: 'tools/call',
        params: { name: 'hang', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    }).catch(() => undefined);
    await until(() => hangStarted, 'the call to start');
    controller.abort();
    await res;
    await until(() => hangAborted, 'the call to see its cancellation');
    expect(hangAborted).toBe(true);
  });
});

describe('Streamable HTTP, legacy sessions', () => {
  it('opens a session on initialize and serves it until DELETE', async () => {
    http = await startHttp(makeServer());
    const sessionId = await http.initialize();
    expect(sessionId).toMatch(/^[\x21-\x7E]+$/);
    const list = await http.legacy(sessionId, 'tools/list');
    expect((await list.json()).result.tools.map((t: { name: string }) => t.name)).toEqual(['echo', 'count', 'regional', 'hang']);
    const del = await fetch(http.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(del.status).toBe(200);
    expect((await http.legacy(sessionId, 'tools/list')).status).toBe(404);
  });

  it('answers notifications with 202 and an unknown session with 404', async () => {
    http = await startHttp(makeServer());
    const sessionId = await http.initialize();
    expect((await http.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId })).status).toBe(202);
    expect((await http.legacy('no-such-session', 'ping')).status).toBe(404);
  });

  it('refuses an unsupported MCP-Protocol-Version on a session with 400', async () => {
    http = await startHttp(makeServer());
    const sessionId = await http.initialize();
    const res = await http.post({ jsonrpc: '2.0', id: 5, method: 'ping' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '1999-01-01' });
    expect(res.status).toBe(400);
  });

  it('opens one GET stream per session and answers GET without a session with 405', async () => {
    http = await startHttp(makeServer());
    expect((await fetch(http.url, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
    const sessionId = await http.initialize();
    const controller = new AbortController();
    const stream = await fetch(http.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId }, signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    expect((await fetch(http.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } })).status).toBe(409);
    controller.abort();
  });

  it('caps live sessions and answers 503 beyond the cap', async () => {
    http = await startHttp(makeServer(), { maxSessions: 2 });
    await http.initialize();
    await http.initialize();
    const res = await http.post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
  });

  it('ends sessions that stay idle past the timeout', async () => {
    http = await startHttp(makeServer(), { sessionIdleMs: 1 });
    const sessionId = await http.initialize();
    // The sweeper runs at most every second when the idle time is this short.
    await new Promise((r) => setTimeout(r, 1_300));
    expect((await http.legacy(sessionId, 'ping')).status).toBe(404);
  });
});

describe('Streamable HTTP, hardening', () => {
  it.each([
    ['a foreign Host', { host: 'evil.example.com' }],
    ['a foreign Origin', { origin: 'http://evil.example.com' }],
    ['a look-alike Origin', { origin: 'http://localhost.evil.com' }],
  ])('refuses %s with 403 (DNS rebinding)', async (_label, headers) => {
    http = await startHttp(makeServer());
    const res = await rawRequest(http.url, { headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
    expect(res.status).toBe(403);
  });

  it('accepts loopback origins on any port', async () => {
    http = await startHttp(makeServer());
    expect((await http.modern('tools/list', {}, { origin: 'http://localhost:5173' })).status).toBe(200);
  });

  it('honours a configured origin allow-list', async () => {
    http = await startHttp(makeServer(), { allowedOrigins: ['https://app.example.com'] });
    expect((await http.modern('tools/list', {}, { origin: 'https://app.example.com' })).status).toBe(200);
    expect((await http.modern('tools/list', {}, { origin: 'http://localhost:5173' })).status).toBe(403);
  });

  it('refuses bodies over the limit with 413, batches and bad JSON with 400, other content types with 415', async () => {
    http = await startHttp(makeServer(), { maxBodyBytes: 1024 });
    expect((await http.post('x'.repeat(2048))).status).toBe(413);
    const batch = await http.post([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]);
    expect(batch.status).toBe(400);
    expect((await batch.json()).error.code).toBe(-32600);
    const bad = await http.post('{oops');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe(-32700);
    const text = await fetch(http.url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(text.status).toBe(415);
  });

  it('answers other paths with 404 and other methods with 405', async () => {
    http = await startHttp(makeServer());
    expect((await fetch(http.url.replace('/mcp', '/other'))).status).toBe(404);
    expect((await fetch(http.url, { method: 'PUT' })).status).toBe(405);
  });
});
