/**
 * toolwright/client's OAuth against a real authorization server (oidc-provider)
 * guarding a real toolwright server, the browser played over HTTP: the client
 * meets the 401, discovers the resource and the authorization server, registers
 * itself, sends the user to sign in and consent, gets the code back on its
 * loopback listener, and calls tools; it refreshes an expired token, and steps
 * up when a tool needs a scope its token lacks. Tokens land in files only the
 * user can read.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTokenStore, LoopbackRedirect, OAuthClient, ToolClient } from '../../src/client.js';
import type { HttpServerHandle } from '../../src/transports/http-server.js';
import { playBrowser, type BrowserRun } from '../helpers/browser.js';
import { AGENT, startAuthorizationServer, type LocalAuthorizationServer } from '../helpers/oidc.js';
import { serveProtectedNotes, type NoteCall } from '../helpers/protected-notes.js';

let as: LocalAuthorizationServer;
let http: HttpServerHandle;
let dir: string;
const calls: NoteCall[] = [];

beforeAll(async () => {
  as = await startAuthorizationServer({ interactive: true });
  dir = await mkdtemp(join(tmpdir(), 'toolwright-oauth-'));
  http = await serveProtectedNotes(as, calls);
});
afterAll(async () => {
  await http?.close();
  await as?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every request the OAuth client made (to the authorization server and, with its token, to the MCP server). */
interface AsRequest {
  url: URL;
  method: string;
  form?: URLSearchParams;
  authorization?: string;
}

function recordingFetch(log: AsRequest[]): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    log.push({
      url,
      method: init?.method ?? 'GET',
      ...(headers.get('content-type')?.startsWith('application/x-www-form-urlencoded') ? { form: new URLSearchParams(String(init?.body)) } : {}),
      ...(headers.get('authorization') ? { authorization: headers.get('authorization')! } : {}),
    });
    return fetch(input, init);
  };
}

describe.each(['modern', 'legacy'] as const)('authorization code flow with a real oidc-provider (%s era)', (era) => {
  it('logs in through the browser, calls a tool, refreshes an expired token, and steps up for a scope it lacks', async () => {
    calls.length = 0;
    as.tokenTtlSeconds = 300;
    const store = new FileTokenStore(join(dir, era, 'oauth'));
    const asRequests: AsRequest[] = [];
    const browsing: Array<Promise<BrowserRun>> = [];
    const authorizationUrls: URL[] = [];
    const loopback = await LoopbackRedirect.listen({
      onPrompt: (prompt) => {
        authorizationUrls.push(prompt.url);
        browsing.push(playBrowser(prompt.url, { login: 'alice' }));
      },
    });
    const oauth = new OAuthClient(http.url, { redirectUri: loopback.redirectUri, authorize: loopback.authorize, store, fetch: recordingFetch(asRequests) });
    const client = await ToolClient.connect({ url: http.url }, { era, authorization: oauth, timeoutMs: 20_000, onWarning: () => {} });
    try {
      // 1. The first request met the 401; the user signed in and consented; the tools are listed.
      expect(client.era).toBe(era);
      expect((await client.listTools()).map((t) => t.name)).toEqual(['read_notes']);
      expect(authorizationUrls).toHaveLength(1);
      const first = authorizationUrls[0].searchParams;
      expect(first.get('code_challenge_method')).toBe('S256');
      expect(first.get('resource')).toBe(http.url);
      // Scope selection: the challenge named none, so all of scopes_supported; offline_access as the server offers it.
      expect(first.get('scope')?.split(' ').sort()).toEqual(['offline_access', 'tools:read']);
      const landed = (await browsing[0]).landedOn!;
      expect(landed.origin).toBe(new URL(loopback.redirectUri).origin);
      expect(landed.searchParams.get('iss')).toBe(as.issuer);
      expect(await client.callTool('read_notes')).toMatchObject({ content: [{ type: 'text', text: 'three notes' }] });
      expect(calls.at(-1)).toMatchObject({ tool: 'read_notes', principal: 'alice' });

      // The client registered itself (RFC 7591) and gave the resource on its token request too.
      const registration = asRequests.find((r) => r.method === 'POST' && r.url.pathname.includes('reg'));
      expect(registration).toBeDefined();
      const codeGrant = asRequests.find((r) => r.form?.get('grant_type') === 'authorization_code')!;
      expect(codeGrant.form?.get('resource')).toBe(http.url);
      expect(codeGrant.form?.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/);

      // 2. The token expires: the next call refreshes it (refresh_token grant, same resource), no browser.
      const before = (await oauth.currentTokens())!;
      expect(before.refreshToken).toBeDefined();
      as.tokenTtlSeconds = 2;
      await store.saveTokens({ ...before, expiresAt: Date.now() - 1_000, obtainedAt: Date.now() - 300_000 });
      const reloaded = new OAuthClient(http.url, {
        redirectUri: loopback.redirectUri,
        authorize: loopback.authorize,
        store,
        fetch: recordingFetch(asRequests),
      });
      const again = await ToolClient.connect({ url: http.url }, { era, authorization: reloaded, timeoutMs: 20_000, onWarning: () => {} });
      try {
        expect(await again.callTool('read_notes')).toMatchObject({ content: [{ type: 'text', text: 'three notes' }] });
      } finally {
        await again.close();
      }
      const refresh = asRequests.filter((r) => r.form?.get('grant_type') === 'refresh_token');
      expect(refresh).toHaveLength(1);
      expect(refresh[0].form?.get('resource')).toBe(http.url);
      const refreshed = (await reloaded.currentTokens())!;
      expect(refreshed.accessToken).not.toBe(before.accessToken);
      expect(authorizationUrls).toHaveLength(1);

      // 3. write_note needs tools:write: 403 insufficient_scope, a second authorization with the union, then the call.
      as.tokenTtlSeconds = 300;
      const wrote = await client.callTool('write_note', { text: 'hi' });
      expect(wrote.content).toEqual([{ type: 'text', text: 'wrote hi' }]);
      expect(authorizationUrls).toHaveLength(2);
      expect(authorizationUrls[1].searchParams.get('scope')?.split(' ').sort()).toEqual(['offline_access', 'tools:read', 'tools:write']);
      expect(calls.at(-1)).toMatchObject({ tool: 'write_note', principal: 'alice' });
      expect(calls.at(-1)?.scopes).toEqual(expect.arrayContaining(['tools:read', 'tools:write']));

      // The bearer went to the MCP server only: no request to the authorization server carried it.
      const withBearer = asRequests.filter((r) => r.authorization?.startsWith('Bearer'));
      expect(withBearer.length).toBeGreaterThan(0);
      expect(new Set(withBearer.map((r) => r.url.href))).toEqual(new Set([http.url]));
      expect(asRequests.filter((r) => r.url.origin === new URL(as.issuer).origin && r.authorization?.startsWith('Bearer'))).toEqual([]);
    } finally {
      await client.close();
      await loopback.close();
    }

    // Stored per server, readable by the user alone.
    const servers = join(dir, era, 'oauth', 'servers');
    const [file] = await readdir(servers);
    expect((await stat(join(servers, file))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, era, 'oauth'))).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(await readFile(join(servers, file), 'utf8'));
    expect(saved.server).toBe(http.url);
    expect(Object.keys(saved.byIssuer)).toEqual([as.issuer]);
  });
});

describe('client_credentials for an unattended client, with a real oidc-provider', () => {
  it('gets a token for the resource with no user, and steps up with a new token for the wider scope', async () => {
    calls.length = 0;
    const asRequests: AsRequest[] = [];
    const oauth = new OAuthClient(http.url, {
      grantType: 'client_credentials',
      clientId: AGENT.id,
      clientSecret: AGENT.secret,
      fetch: recordingFetch(asRequests),
    });
    const client = await ToolClient.connect({ url: http.url }, { authorization: oauth, timeoutMs: 20_000, onWarning: () => {} });
    try {
      expect((await client.listTools()).map((t) => t.name)).toEqual(['read_notes']);
      expect((await client.callTool('write_note', { text: 'x' })).content).toEqual([{ type: 'text', text: 'wrote x' }]);
      const grants = asRequests.filter((r) => r.form?.get('grant_type') === 'client_credentials');
      expect(grants.map((g) => g.form?.get('scope'))).toEqual(['tools:read', 'tools:read tools:write']);
      expect(grants.every((g) => g.form?.get('resource') === http.url && g.authorization?.startsWith('Basic '))).toBe(true);
      expect(calls.at(-1)).toMatchObject({ tool: 'write_note', principal: AGENT.id });
    } finally {
      await client.close();
    }
  });
});
