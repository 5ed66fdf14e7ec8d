/**
 * The facade on the web-standard face: a server that speaks only Web Request/Response (as Hono,
 * Bun or Deno would) answers every path with `proxy.fetch(request) ?? handler.fetch(request)`.
 * The official SDK client signs in through it end to end (both metadata documents, registration,
 * consent, the provider, the token endpoint), calls a tool, and is refused once its grant is revoked.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthProxy, type AuthProxy } from '../../src/auth-proxy/facade.js';
import { createHttpHandler, type HttpHandler } from '../../src/index.js';
import { ToolServer } from '../../src/server/server.js';
import { freePort } from '../helpers/free-port.js';
import { memoryLogger, MODERN, modernMeta } from '../helpers/wire.js';
import { ENCRYPTION_KEY } from './helpers/facade-server.js';
import { startOidcUpstream, UPSTREAM_CLIENT, type UpstreamIdp } from './helpers/oidc-upstream.js';
import { sdkSignIn } from './helpers/sdk-client.js';

/** What a fetch runtime does with a socket: Node's request as a Web Request, the Web Response written back. */
async function bridge(req: IncomingMessage, res: ServerResponse, serve: (request: Request, remoteAddress?: string) => Promise<Response>): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
  } as RequestInit);
  const response = await serve(request, req.socket.remoteAddress);
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') out[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) out['set-cookie'] = cookies;
  res.writeHead(response.status, out);
  res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
}

let idp: UpstreamIdp;
let proxy: AuthProxy;
let handler: HttpHandler;
let http: Server;
let url: string;
let origin: string;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  url = `${origin}/mcp`;
  idp = await startOidcUpstream({ callbackUrl: `${origin}/oauth/callback` });
  const { logger } = memoryLogger();
  proxy = createAuthProxy(
    { provider: 'oidc', issuer: idp.issuer, clientId: UPSTREAM_CLIENT.id, clientSecret: UPSTREAM_CLIENT.secret, encryptionKey: ENCRYPTION_KEY },
    url,
    logger,
  );
  const tools = new ToolServer({
    name: 'fetch-facade',
    logger,
    audit: false,
    tools: [{ name: 'whoami', description: 'Says who is calling.', inputSchema: { type: 'object' }, handler: async (_a, ctx) => `you are ${ctx.caller.id}` }],
  });
  handler = createHttpHandler(tools, { auth: proxy.resourceServer(), resource: url });
  const serve = async (request: Request, remoteAddress?: string) =>
    (await proxy.fetch(request, { remoteAddress })) ?? (await handler.fetch(request, { remoteAddress }));
  http = createServer((req, res) => void bridge(req, res, serve).catch(() => res.destroy()));
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    http?.close(() => resolve());
    http?.closeAllConnections();
  });
  await handler?.close();
  await proxy?.close();
  await idp?.close();
});

describe('the facade served through proxy.fetch', () => {
  it('the SDK client signs in, calls a tool, and is refused once the grant is revoked', async () => {
    const { client, provider, run } = await sdkSignIn(url);
    try {
      expect(run.sawConsent).toBe(true);
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'you are carol' }]);
    } finally {
      await client.close();
    }
    const revoked = await fetch(`${origin}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: provider.savedTokens.refresh_token, client_id: provider.clientInfo.client_id }),
    });
    expect(revoked.status).toBe(200);
    const refused = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${provider.savedTokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'whoami',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: modernMeta() } }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="the access token was revoked"/);
  });

  it('answers a CORS preflight, and leaves paths that are not its own to the MCP handler', async () => {
    const preflight = await proxy.fetch(new Request(`${origin}/token`, { method: 'OPTIONS' }));
    expect(preflight?.status).toBe(204);
    expect(preflight?.headers.get('access-control-allow-origin')).toBe('*');
    expect(await proxy.fetch(new Request(url, { method: 'POST' }))).toBeUndefined();
    expect(await proxy.fetch(new Request(`${origin}/token/extra`))).toBeUndefined();
    const metadata = await proxy.fetch(new Request(`${origin}/.well-known/oauth-authorization-server?x=1`));
    expect(((await metadata!.json()) as { issuer: string }).issuer).toBe(origin);
  });
});
