/**
 * The facade end to end with the official SDK client (its OAuth flow: 401, protected-resource
 * metadata, RFC 8414 metadata, dynamic registration, PKCE) and a real OpenID provider
 * (oidc-provider) upstream: the user's browser goes through toolwright's consent and the
 * provider's login; the client calls a tool with toolwright's token; the tool reaches the
 * provider's token; refresh rotates; revocation ends the grant and its access tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startOidcFacade, type OidcFacade } from './helpers/facade-server.js';
import { UPSTREAM_CLIENT, type UpstreamIdp } from './helpers/oidc-upstream.js';
import { sdkSignIn } from './helpers/sdk-client.js';

let idp: UpstreamIdp;
let server: OidcFacade;

beforeAll(async () => {
  server = await startOidcFacade();
  idp = server.idp;
});
afterAll(async () => {
  await server?.close();
});

describe('the SDK client signs in through the facade (oidc-provider upstream)', () => {
  it('registers, consents, signs in upstream with PKCE, and calls a tool with a token toolwright issued for this server', async () => {
    const { client, provider, run } = await sdkSignIn(server.url);
    try {
      expect(run.sawConsent).toBe(true);
      // The provider leg had its own PKCE and nonce, and went to the fixed callback.
      const asked = idp.authorizations.at(-1)!;
      expect(asked.get('code_challenge_method')).toBe('S256');
      expect(asked.get('nonce')).toBeTruthy();
      expect(asked.get('redirect_uri')).toBe(`${server.origin}/oauth/callback`);
      // The client holds toolwright's token, never the provider's.
      const claims = decodeJwt(provider.savedTokens.access_token);
      expect(claims).toMatchObject({ iss: server.origin, aud: server.url, sub: 'carol', client_id: provider.clientInfo.client_id });
      expect(provider.clientInfo.client_secret).toBeUndefined();
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'you are carol' }]);
      const call = server.calls.at(-1)!;
      expect(call.upstreamError).toBeUndefined();
      expect(call.upstream).toBeTruthy();
      expect(call.upstream).not.toBe(provider.savedTokens.access_token);
      // Nothing secret in the server's logs.
      const logs = server.logs();
      expect(logs).not.toContain(call.upstream!);
      expect(logs).not.toContain(provider.savedTokens.access_token);
      expect(logs).not.toContain(UPSTREAM_CLIENT.secret);
    } finally {
      await client.close();
    }
  });

  it('refresh rotates the refresh token; the old one replayed ends the grant', async () => {
    const { client, provider } = await sdkSignIn(server.url);
    await client.close();
    const token = (form: Record<string, string>) =>
      fetch(`${server.origin}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
    const first = provider.savedTokens.refresh_token as string;
    const clientId = provider.clientInfo.client_id as string;
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first, client_id: clientId });
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(next.refresh_token).not.toBe(first);
    const call = (accessToken: string) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      });
    expect((await call(next.access_token)).status).toBe(200);
    // The rotated-out token again: refused, and the grant (with the new refresh token) is over.
    expect((await token({ grant_type: 'refresh_token', refresh_token: first, client_id: clientId })).status).toBe(400);
    const after = await token({ grant_type: 'refresh_token', refresh_token: next.refresh_token, client_id: clientId });
    expect(after.status).toBe(400);
    expect(await after.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('revoking the refresh token ends the grant: no refresh, and its access token no longer reaches any tool', async () => {
    const { client, provider } = await sdkSignIn(server.url);
    try {
      const clientId = provider.clientInfo.client_id as string;
      const revoked = await fetch(`${server.origin}/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: provider.savedTokens.refresh_token, client_id: clientId }),
      });
      expect(revoked.status).toBe(200);
      const refresh = await fetch(`${server.origin}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: provider.savedTokens.refresh_token, client_id: clientId }),
      });
      expect(refresh.status).toBe(400);
      // The access token the client still holds is refused at the door (401, its grant ended):
      // the SDK tries its refresh token, which is dead too, so the call fails without reaching the tool.
      const reached = server.calls.length;
      await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow(/refresh token is invalid/);
      expect(server.calls.length).toBe(reached);
      expect(idp.revocations.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("a second sign-in of the same client, scopes and redirect in the same browser skips toolwright's consent (remembered); another browser is asked", async () => {
    const { client, provider, run } = await sdkSignIn(server.url);
    await client.close();
    expect(run.sawConsent).toBe(true);
    provider.savedTokens = undefined;
    const again = await sdkSignIn(server.url, { jar: run.jar }, provider);
    await again.client.close();
    expect(again.run.sawConsent).toBe(false);
    provider.savedTokens = undefined;
    const elsewhere = await sdkSignIn(server.url, {}, provider);
    await elsewhere.client.close();
    expect(elsewhere.run.sawConsent).toBe(true);
  });
});
