/**
 * An authorization nobody waits for any more is stopped (issue 21): a client whose connect
 * timed out while the server's Protected Resource Metadata hung must not keep that request
 * open (for the authorization requests' own 15 s), holding the process up after it gave up.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OAuthClient, ToolClient } from '../../../src/client.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? (server.closeAllConnections(), server.close(() => resolve())) : resolve()));
  server = undefined;
});

describe('an abandoned authorization', () => {
  it('stops its requests once the only request waiting for it gave up', async () => {
    const hung: IncomingMessage[] = [];
    server = createServer((req, res) => {
      // The metadata never comes; the MCP endpoint asks for authorization.
      if (req.url!.startsWith('/.well-known/')) return void hung.push(req);
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const err = await ToolClient.connect({ url }, { authorization: new OAuthClient(url), connectTimeoutMs: 300, onWarning: () => {} }).catch((e) => e);
    expect(err.reason).toBe('connect-timeout');
    expect(hung).toHaveLength(1);
    // Aborted by the client: the server sees the request go. Without the stop it stays open for 15 s.
    await expect.poll(() => hung[0].destroyed || hung[0].socket?.destroyed, { timeout: 10_000 }).toBe(true);
  });
});
