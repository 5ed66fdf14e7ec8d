import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { rawRequest, startHttp } from '../helpers/http.js';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../helpers/oidc.js';
import { MODERN, modernMeta } from '../helpers/wire.js';

// A token verified once is answered from the verification cache (http-authorization.ts fast
// path). The cache must never make the Authorization header's checks looser: a header the full
// parse refuses is refused the same way while its token sits in the cache.
let as: LocalAuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer();
});
afterAll(async () => {
  await as?.close();
});

const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } });

describe('a cached bearer token', () => {
  it('is accepted with any framing the parse accepts, and refused as before in a malformed header', async () => {
    const server = new ToolServer({ tools: [{ name: 'noop', description: 'does nothing', inputSchema: { type: 'object' }, handler: () => 'ok' }] });
    const http = await startHttp(server, { auth: { issuer: as.issuer } });
    try {
      const { access_token } = await as.token({ resource: http.url });
      const call = (authorization: string, path = '') =>
        rawRequest(`${http.url}${path}`, {
          headers: {
            authorization,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            'mcp-method': 'tools/list',
          },
          body,
        });
      // First use verifies and caches it.
      expect((await call(`Bearer ${access_token}`)).status).toBe(200);
      // Accepted framings: scheme in any case, several spaces.
      expect((await call(`bearer ${access_token}`)).status).toBe(200);
      expect((await call(`BEARER   ${access_token}  `)).status).toBe(200);
      // Refused framings, though the token inside is a cached one.
      expect((await call(`Bearer ${access_token}\tx`)).status).toBe(400);
      expect((await call(`Bearer ${access_token} x`)).status).toBe(400);
      expect((await call(`Bearer\t${access_token}`)).status).toBe(400);
      expect((await call(`Bearer${access_token}`)).status).toBe(401);
      expect((await call(`Basic ${access_token}`)).status).toBe(401);
      expect((await call(`Bearer ${access_token}x`)).status).toBe(401);
      // A token in the query string is refused even when the header's token is cached.
      expect((await call(`Bearer ${access_token}`, `?access_token=${access_token}`)).status).toBe(400);
    } finally {
      server.close();
      await http.close();
    }
  });
});

describe('one keep-alive connection', () => {
  // The server remembers the last Authorization header of a connection (to skip hashing a token
  // it sees again). That memo must never stand in for the token: another token on the same
  // connection is judged on its own, and an expired one is refused though the connection knew it.
  it("judges each request's own token: a switch is seen, a bad token refused, an expired one refused", async () => {
    as.tokenTtlSeconds = 2;
    const server = new ToolServer({
      tools: [
        { name: 'scopes', description: 'Names the granted scopes.', inputSchema: { type: 'object' }, handler: (_a, ctx) => (ctx.auth?.scopes ?? []).join(' ') },
      ],
    });
    const http = await startHttp(server, { auth: { issuer: as.issuer, clockToleranceSeconds: 0 } });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const read = (await as.token({ resource: http.url, scope: 'tools:read' })).access_token;
      const write = (await as.token({ resource: http.url, scope: 'tools:write' })).access_token;
      const sockets = new Set<unknown>();
      const call = (token: string) =>
        new Promise<{ status: number; text: string; challenge?: string }>((resolve, reject) => {
          const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'scopes', arguments: {}, _meta: modernMeta() } });
          const req = request(
            http.url,
            {
              method: 'POST',
              agent,
              headers: {
                authorization: `Bearer ${token}`,
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                'mcp-protocol-version': MODERN,
                'mcp-method': 'tools/call',
                'mcp-name': 'scopes',
              },
            },
            (res) => {
              sockets.add(res.socket);
              let text = '';
              res
                .setEncoding('utf8')
                .on('data', (d) => (text += d))
                .on('end', () => resolve({ status: res.statusCode!, text, challenge: res.headers['www-authenticate'] as string | undefined }));
            },
          );
          req.on('error', reject).end(payload);
        });
      const scopesOf = (answer: { text: string }) => JSON.parse(answer.text).result.content[0].text;

      expect(scopesOf(await call(read))).toBe('tools:read');
      expect(scopesOf(await call(read))).toBe('tools:read');
      expect(scopesOf(await call(write))).toBe('tools:write');
      const forged = `${read.slice(0, -4)}AAAA`;
      const refused = await call(forged);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toMatch(/error="invalid_token"/);
      expect(scopesOf(await call(read))).toBe('tools:read');
      await new Promise((r) => setTimeout(r, 2_100));
      const expired = await call(read);
      expect(expired.status).toBe(401);
      expect(expired.challenge).toMatch(/error="invalid_token"/);
      expect(sockets.size).toBe(1); // every request above went over the one connection
    } finally {
      as.tokenTtlSeconds = 300;
      agent.destroy();
      server.close();
      await http.close();
    }
  });
});
