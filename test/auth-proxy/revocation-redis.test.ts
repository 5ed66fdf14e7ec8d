/**
 * Two `toolwright serve --http` replicas sharing one Redis (server.state.redis) and one public
 * resource URL, as behind a load balancer: a grant revoked at one replica is refused at the
 * other on the next request (no replica keeps a stale "still live" answer).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { REDIS_SERVER, TestRedis } from '../helpers/redis.js';
import { startServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp.js';
import { MODERN, modernMeta } from '../helpers/wire.js';
import { ENCRYPTION_KEY } from './helpers/facade-server.js';
import { APP_REDIRECT, pkce, register, signIn, token } from './helpers/flow.js';
import { startOidcUpstream, UPSTREAM_CLIENT, type UpstreamIdp } from './helpers/oidc-upstream.js';

let redis: TestRedis;
let idp: UpstreamIdp | undefined;
beforeAll(async () => {
  if (REDIS_SERVER) redis = await TestRedis.create();
});
afterAll(async () => {
  await idp?.close();
  await redis?.destroy();
});

async function replica(cwd: string, port: number, env: Record<string, string>) {
  const serve = startServe(['--http', '--port', String(port), '--config', 'toolwright.config.json'], { cwd, env });
  // Generous: two processes start at once, on a machine that may be busy.
  await expect.poll(serve.stderr, { timeout: 45_000 }).toMatch(/serving \d+ tool\(s\) on http:\/\/\S+/);
  return { ...serve, url: `http://127.0.0.1:${port}/mcp` };
}

let ids = 0;
const sum = (url: string, accessToken: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'calculate_sum',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++ids,
      method: 'tools/call',
      params: { name: 'calculate_sum', arguments: { a: 1, b: 2 }, _meta: modernMeta() },
    }),
  });

describe.skipIf(!REDIS_SERVER)('two replicas sharing Redis', () => {
  it('a grant revoked at replica A is refused at replica B on the next request; another grant still works at both; Redis down refuses all', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const origin = `http://127.0.0.1:${portA}`;
    idp = await startOidcUpstream({ callbackUrl: `${origin}/oauth/callback` });
    const cwd = tempDir('tw-proxy-redis-');
    const proxy = {
      provider: 'oidc',
      issuer: idp.issuer,
      clientId: UPSTREAM_CLIENT.id,
      clientSecret: UPSTREAM_CLIENT.secret,
      encryptionKey: '${TEST_PROXY_KEY}',
    };
    const config = {
      toolsets: { math: {} },
      server: {
        audit: false,
        tasks: false,
        auth: { resource: `${origin}/mcp`, proxy },
        state: { redis: '${TEST_REDIS_URL}', keyPrefix: `proxy-${process.pid}` },
        requestStateSecret: '${TEST_REQUEST_STATE_SECRET}',
      },
    };
    writeFileSync(join(cwd, 'toolwright.config.json'), JSON.stringify(config));
    const env = {
      TOOLWRIGHT_AUDIT_DIR: '',
      TEST_REDIS_URL: redis.url,
      TEST_PROXY_KEY: ENCRYPTION_KEY,
      TEST_REQUEST_STATE_SECRET: `s-${process.pid}-${Date.now()}`,
    };
    const [a, b] = await Promise.all([replica(cwd, portA, env), replica(cwd, portB, env)]);

    const grant = async () => {
      const client = await register(origin);
      const { verifier, challenge } = pkce();
      const { code } = await signIn(origin, client.client_id, { challenge });
      const form = { grant_type: 'authorization_code', code: code!, redirect_uri: APP_REDIRECT, code_verifier: verifier, client_id: client.client_id };
      const issued = await token(origin, form);
      expect(issued.status).toBe(200);
      return { clientId: client.client_id, ...(issued.body as { access_token: string; refresh_token: string }) };
    };
    const revoked = await grant();
    const kept = await grant();
    for (const url of [a.url, b.url]) {
      expect((await sum(url, revoked.access_token)).status).toBe(200);
      expect((await sum(url, kept.access_token)).status).toBe(200);
    }
    const answer = await fetch(`${origin}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: revoked.refresh_token, client_id: revoked.clientId }),
    });
    expect(answer.status).toBe(200);
    for (const url of [b.url, a.url]) {
      const refused = await sum(url, revoked.access_token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="the access token was revoked"/);
      const ok = await sum(url, kept.access_token);
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { result: { isError?: boolean } }).result.isError).toBeFalsy();
    }
    // Redis out of reach: no replica can tell whether a grant still stands, so none waves a token
    // through (503 with Retry-After, never a 200 from a stale answer).
    await redis.stop();
    const down = await sum(b.url, kept.access_token);
    expect([down.status, down.headers.get('retry-after')]).toEqual([503, '5']);
  }, 90_000); // two `serve` processes start (several seconds each on a busy machine)
});
