/**
 * An authorization nobody waits for any more is stopped (issue 21): a client whose connect
 * timed out while the server's Protected Resource Metadata hung must not keep that request
 * open (for the authorization requests' own 15 s), holding the process up after it gave up.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopbackRedirect, OAuthClient, ToolClient, type AuthorizationPrompt } from '../../../src/client.js';
import { playBrowser } from '../../helpers/browser.js';
import { startAuthorizationServer } from '../../helpers/oidc.js';
import { serveProtectedNotes } from '../../helpers/protected-notes.js';

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

  it("does not stop a person's sign-in: it completes after the request gave up, and its tokens serve the next one", async () => {
    const as = await startAuthorizationServer({ interactive: true });
    const http = await serveProtectedNotes(as, []);
    const loopback = await LoopbackRedirect.listen();
    try {
      const prompts: AuthorizationPrompt[] = [];
      let signingIn: Promise<URL> | undefined;
      const oauth = new OAuthClient(http.url, {
        redirectUri: loopback.redirectUri,
        authorize: (prompt) => {
          prompts.push(prompt);
          return (signingIn = loopback.authorize(prompt));
        },
      });
      // The only request that needed the authorization gives up while the user is on the sign-in page.
      const gaveUp = new AbortController();
      const abandoned = oauth
        .fetch(http.url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' }, signal: gaveUp.signal })
        .catch((e) => e);
      await expect.poll(() => prompts.length, { timeout: 20_000 }).toBe(1);
      gaveUp.abort(new Error('the caller gave up'));
      expect(await abandoned).toBeInstanceOf(Error);
      expect(prompts[0].signal.aborted).toBe(false);
      // The user finishes signing in; the tokens are kept, and the next client needs no new sign-in.
      await playBrowser(prompts[0].url, { login: 'dana' });
      await signingIn;
      await expect.poll(() => oauth.currentTokens(), { timeout: 20_000 }).toBeDefined();
      const client = await ToolClient.connect({ url: http.url }, { authorization: oauth, onWarning: () => {} });
      try {
        expect((await client.listTools()).map((t) => t.name)).toEqual(['read_notes']);
        expect(prompts).toHaveLength(1);
      } finally {
        await client.close();
      }
    } finally {
      await loopback.close();
      await http.close();
      await as.close();
    }
  });
});
