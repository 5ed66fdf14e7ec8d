import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpHandler, type HttpHandler } from '../../src/index.js';
import { ToolServer } from '../../src/server/server.js';
import { describeMounted, HEALTH_TEXT, mountedFixture, type MountedApp } from '../helpers/mounted-mcp.js';
import { readSse } from '../helpers/http.js';
import { memoryLogger, MODERN, modernMeta } from '../helpers/wire.js';

/** A plain node:http app: its own /health, the MCP handler, and its own 404 through `next`. */
async function listen(server: Server): Promise<MountedApp> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describeMounted('the MCP handler mounted in a plain node:http server with routes of its own', (handler) =>
  listen(
    createServer((req, res) => {
      if (req.url === '/health') return void res.end(HEALTH_TEXT);
      handler.handle(req, res, () => res.writeHead(404, { 'content-type': 'text/plain' }).end('the app has no such page'));
    }),
  ),
);

describe('createHttpHandler on node:http', () => {
  let app: MountedApp | undefined;
  let handler: HttpHandler | undefined;
  afterEach(async () => {
    await handler?.close();
    await app?.close();
    app = handler = undefined;
  });
  const toolServer = () =>
    new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [{ name: 'a', description: 'a', inputSchema: { type: 'object' }, handler: () => 'a' }],
    });
  const list = (url: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } }),
    });

  it('answers 404 itself for a path it does not own when given no next', async () => {
    handler = createHttpHandler(toolServer(), { path: '/tools/mcp' });
    app = await listen(createServer(handler.handle));
    const other = await fetch(`${app.base}/mcp`);
    expect(other.status).toBe(404);
    expect(await other.text()).toBe('Not Found');
    expect((await list(`${app.base}/tools/mcp?x=1`)).status).toBe(200);
  });

  it('serves its Protected Resource Metadata beside MCP, naming the resource it was given', async () => {
    const resource = 'https://mcp.example.com/mcp';
    handler = createHttpHandler(toolServer(), { resource, auth: { issuer: 'https://as.example.com', scopesSupported: ['tools:read'] } });
    app = await listen(createServer((req, res) => handler!.handle(req, res, () => res.writeHead(418).end())));
    const metadata = await fetch(`${app.base}/.well-known/oauth-protected-resource/mcp`);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({ resource, authorization_servers: ['https://as.example.com'], scopes_supported: ['tools:read'] });
    // The challenge points clients at the resource's own metadata URL, not at the address the app listens on.
    const unauthorized = await list(`${app.base}/mcp`);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toContain('resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"');
    expect((await fetch(`${app.base}/.well-known/other`)).status).toBe(418);
  });

  it('refuses OAuth without a resource URI, and a resource that is no absolute URL, at once (a TypeError, not a later rejection)', () => {
    expect(() => createHttpHandler(toolServer(), { auth: { issuer: 'https://as.example.com' } })).toThrow(
      /OAuth needs the canonical resource URI: set `resource`/,
    );
    expect(() => createHttpHandler(toolServer(), { resource: 'mcp.example.com/mcp', auth: { issuer: 'https://as.example.com' } })).toThrow(
      /must be an absolute URL/,
    );
    expect(() =>
      createHttpHandler(toolServer(), { resource: 'https://a.example/mcp', auth: { resource: 'https://b.example/mcp', issuer: 'https://as.example.com' } }),
    ).toThrow(/differ/);
    expect(() => createHttpHandler(toolServer(), { path: 'mcp' })).toThrow(/path must start with "\/"/);
    expect(() => createHttpHandler(toolServer(), { maxStreams: 0 })).toThrow(RangeError);
  });

  it('answers 500 (and logs why) when the app read the body first and left nothing to serve', async () => {
    const { logger, records } = memoryLogger();
    handler = createHttpHandler(new ToolServer({ logger, audit: false }), {});
    // A host that drains the body itself before handing the request on.
    app = await listen(createServer((req, res) => req.resume().once('end', () => handler!.handle(req, res))));
    const res = await list(`${app.base}/mcp`);
    expect(res.status).toBe(500);
    expect((await res.json()).error.message).toBe('Internal error');
    expect(records.map((r) => String(r.err?.message))).toContainEqual(expect.stringContaining('mount the handler before body parsers'));
  });

  it('close() ends legacy sessions and their streams, then answers 503', async () => {
    const { handler: h, key } = await mountedFixture();
    handler = h;
    app = await listen(createServer(h.handle));
    const url = `${app.base}/mcp`;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` };
    const init = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    expect(sessionId).toBeTruthy();
    const stream = await fetch(url, {
      headers: { ...headers, accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    await h.close({ graceMs: 1_000 });
    // The GET stream ends (the read completes) instead of hanging.
    expect(await readSse(stream, () => false)).toEqual([]);
    const after = await fetch(url, { method: 'POST', headers, body: '{}' });
    expect(after.status).toBe(503);
    expect(after.headers.get('retry-after')).toBe('5');
  });
});
