import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/policy/auth/api-keys.js';
import { ToolServer } from '../../src/server/server.js';
import type { HttpServeOptions } from '../../src/transports/http-server.js';
import { startHttp } from '../helpers/http.js';
import { memoryLogger } from '../helpers/wire.js';

let http: Awaited<ReturnType<typeof startHttp>> | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

const authenticate = (req: IncomingMessage) => (req.headers.authorization === 'Bearer right' ? 'alice' : undefined);
const start = async (options: HttpServeOptions) => {
  http = await startHttp(
    new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [{ name: 'a', description: 'a', inputSchema: { type: 'object' }, handler: () => 'a' }],
    }),
    options,
  );
  return http;
};
const list = (headers: Record<string, string>) => http!.modern('tools/list', {}, headers);

describe('throttling failed authentication per client address', () => {
  it('answers 429 with Retry-After once the failures are used up, to every request from the address, until the window ends', async () => {
    await start({ authenticate, authFailureLimit: { points: 5, durationSeconds: 1 } });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await list({ authorization: `Bearer guess-${i}` })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const blocked = await list({ authorization: 'Bearer right' });
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(1);
    const body = await blocked.json();
    expect(body.error.message).toMatch(/Too Many Requests: too many failed authentications/);
    // The window ends: the right credentials work again, and the allowance is whole.
    await new Promise((r) => setTimeout(r, retryAfter * 1_000 + 100));
    expect((await list({ authorization: 'Bearer right' })).status).toBe(200);
    expect((await list({ authorization: 'Bearer wrong' })).status).toBe(401);
  });

  it('never counts successful requests', async () => {
    await start({ authenticate, authFailureLimit: { points: 3, durationSeconds: 60 } });
    for (let i = 0; i < 30; i++) expect((await list({ authorization: 'Bearer right' })).status).toBe(200);
    expect((await list({ authorization: 'Bearer x' })).status).toBe(401);
    expect((await list({ authorization: 'Bearer right' })).status).toBe(200);
  });

  it('is not fooled by X-Forwarded-For unless told to trust a proxy', async () => {
    await start({ authenticate, authFailureLimit: { points: 3, durationSeconds: 60 } });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await list({ authorization: 'Bearer x', 'x-forwarded-for': `198.51.100.${i}` })).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
  });

  it('with trustProxy, counts the address the proxy appended, not what the client wrote before it', async () => {
    await start({ authenticate, authFailureLimit: { points: 2, durationSeconds: 60 }, trustProxy: true });
    const from = (client: string, spoofed: string) => list({ authorization: 'Bearer x', 'x-forwarded-for': `${spoofed}, ${client}` });
    expect([
      (await from('203.0.113.7', '1.1.1.1')).status,
      (await from('203.0.113.7', '2.2.2.2')).status,
      (await from('203.0.113.7', '3.3.3.3')).status,
    ]).toEqual([401, 401, 429]);
    // Another client behind the same proxy still has its own allowance.
    expect((await from('203.0.113.8', '1.1.1.1')).status).toBe(401);
    expect((await list({ authorization: 'Bearer right', 'x-forwarded-for': '203.0.113.8' })).status).toBe(200);
  });

  it('throttles API keys (server.auth) the same way, and can be switched off', async () => {
    await start({ auth: { apiKeys: [{ hash: generateApiKey().hash, principal: 'ci' }] }, authFailureLimit: { points: 2, durationSeconds: 60 } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await list({ authorization: `Bearer key-${i}` })).status);
    expect(statuses).toEqual([401, 401, 429, 429]);
    await http!.close();
    http = undefined;
    await start({ authenticate, authFailureLimit: false });
    for (let i = 0; i < 30; i++) expect((await list({ authorization: 'Bearer x' })).status).toBe(401);
  });
});
