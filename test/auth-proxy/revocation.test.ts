/**
 * Ending a grant cuts the access tokens already issued under it: after /revoke, or after a
 * refresh token's replay ends the grant, the next tools/call with the old access token is 401
 * `invalid_token` on the Node face and on the fetch face, while other grants go on working.
 * With the facade's state in a real Redis, a second replica refuses the token too (the
 * revocation test across replicas is in revocation-redis.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, type HttpHandler } from '../../src/index.js';
import { ToolServer } from '../../src/server/server.js';
import { memoryLogger, MODERN, modernMeta } from '../helpers/wire.js';
import { startOidcFacade, type OidcFacade } from './helpers/facade-server.js';
import { codeGrant, register, token } from './helpers/flow.js';

let server: OidcFacade;
/** The same facade's tokens checked by a fetch-face endpoint (createHttpHandler().fetch). */
let fetchFace: HttpHandler;

beforeAll(async () => {
  server = await startOidcFacade();
  const tools = new ToolServer({
    name: 'fetch-face',
    logger: memoryLogger().logger,
    audit: false,
    tools: [{ name: 'whoami', description: 'Says who is calling.', inputSchema: { type: 'object' }, handler: async (_a, ctx) => `you are ${ctx.caller.id}` }],
  });
  fetchFace = createHttpHandler(tools, { auth: server.proxy.resourceServer(), resource: server.url });
});
afterAll(async () => {
  await fetchFace?.close();
  await server?.close();
});

type Issued = { clientId: string; access_token: string; refresh_token: string };

/** A client registered and signed in by hand: its id and the tokens of one grant. */
async function signedIn(): Promise<Issued> {
  const { client, issued } = await codeGrant(server.origin);
  expect(issued.status).toBe(200);
  return { clientId: client.client_id, ...issued.body };
}

let ids = 0;
function toolsCall(url: string, accessToken: string): Request {
  return new Request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'whoami',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++ids, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: modernMeta() } }),
  });
}

/** The status and challenge of a tools/call with `accessToken` on both faces. */
async function onBothFaces(accessToken: string): Promise<Array<{ status: number; challenge: string | null }>> {
  const answers = [await fetch(toolsCall(server.url, accessToken)), await fetchFace.fetch(toolsCall(server.url, accessToken))];
  return Promise.all(
    answers.map(async (res) => {
      const body = (await res.json()) as { result?: { content: Array<{ text: string }> } };
      if (res.status === 200) expect(body.result!.content[0].text).toBe('you are carol');
      return { status: res.status, challenge: res.headers.get('www-authenticate') };
    }),
  );
}

const REVOKED = {
  status: 401,
  challenge: `Bearer error="invalid_token", error_description="the access token was revoked", resource_metadata="${'ORIGIN'}/.well-known/oauth-protected-resource/mcp"`,
};
const revokedAnswer = () => ({ ...REVOKED, challenge: REVOKED.challenge.replace('ORIGIN', server.origin) });
const OK = { status: 200, challenge: null };

describe('a grant that ends takes its access tokens with it', () => {
  it('revoked with /revoke: the next tools/call with the old access token is 401 invalid_token on both faces; another grant still works', async () => {
    const revoked = await signedIn();
    const other = await signedIn();
    // Both tokens work first, on both faces (and the verification is now cached).
    expect(await onBothFaces(revoked.access_token)).toEqual([OK, OK]);
    expect(await onBothFaces(other.access_token)).toEqual([OK, OK]);
    const answer = await fetch(`${server.origin}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: revoked.refresh_token, client_id: revoked.clientId }),
    });
    expect(answer.status).toBe(200);
    expect(await onBothFaces(revoked.access_token)).toEqual([revokedAnswer(), revokedAnswer()]);
    expect(await onBothFaces(other.access_token)).toEqual([OK, OK]);
  });

  it('revoking the access token itself ends its grant the same way', async () => {
    const issued = await signedIn();
    await fetch(`${server.origin}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: issued.access_token, client_id: issued.clientId }),
    });
    expect(await onBothFaces(issued.access_token)).toEqual([revokedAnswer(), revokedAnswer()]);
  });

  it('a refresh token replayed ends the grant: every access token issued under it is refused, before and after the refresh', async () => {
    const issued = await signedIn();
    const other = await signedIn();
    const refreshed = await token(server.origin, { grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: issued.clientId });
    expect(refreshed.status).toBe(200);
    expect(await onBothFaces(issued.access_token)).toEqual([OK, OK]);
    expect(await onBothFaces(refreshed.body.access_token)).toEqual([OK, OK]);
    const replay = await token(server.origin, { grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: issued.clientId });
    expect([replay.status, replay.body.error]).toEqual([400, 'invalid_grant']);
    expect(await onBothFaces(issued.access_token)).toEqual([revokedAnswer(), revokedAnswer()]);
    expect(await onBothFaces(refreshed.body.access_token)).toEqual([revokedAnswer(), revokedAnswer()]);
    expect(await onBothFaces(other.access_token)).toEqual([OK, OK]);
  });

  it('a client that revokes another client’s token ends nothing', async () => {
    const victim = await signedIn();
    const intruder = await register(server.origin);
    await fetch(`${server.origin}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: victim.access_token, client_id: intruder.client_id }),
    });
    expect(await onBothFaces(victim.access_token)).toEqual([OK, OK]);
  });
});
