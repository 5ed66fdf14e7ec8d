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
          headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
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
