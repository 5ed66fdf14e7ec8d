import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import type { HttpServeOptions } from '../../src/transports/http-server.js';
import { startHttp } from '../helpers/http.js';
import { memoryLogger, MODERN, modernMeta } from '../helpers/wire.js';

let http: Awaited<ReturnType<typeof startHttp>> | undefined;
const open: Response[] = [];
afterEach(async () => {
  for (const res of open.splice(0)) await res.body?.cancel().catch(() => {});
  await http?.close();
  http = undefined;
});

const tokens: Record<string, string> = { 'Bearer alice': 'alice', 'Bearer bob': 'bob' };
const authenticate = (req: IncomingMessage) => tokens[req.headers.authorization ?? ''];

async function start(options: HttpServeOptions) {
  http = await startHttp(
    new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [{ name: 'a', description: 'a', inputSchema: { type: 'object' }, handler: () => 'a' }],
    }),
    options,
  );
  return http;
}

/** Opens a subscriptions/listen stream; an accepted one is kept open until the test ends. */
async function listen(headers: Record<string, string> = {}) {
  const res = await http!.modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, headers);
  // An accepted stream holds its slot from before its headers were sent until it closes.
  if (res.headers.get('content-type') === 'text/event-stream') open.push(res);
  return res;
}

describe('caps on long-lived streams', () => {
  it('refuses a caller past its share of listen streams with 429, Retry-After and a JSON-RPC error; closing one frees it', async () => {
    await start({ maxStreamsPerPrincipal: 2, maxStreams: 10 });
    expect((await listen()).status).toBe(200);
    expect((await listen()).status).toBe(200);
    const refused = await listen();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = await refused.json();
    expect(body.id).toBeDefined();
    expect(body.error.message).toMatch(/Too Many Requests: .*open streams/);
    await open.shift()!.body!.cancel();
    // The slot is freed when the server sees the stream close: soon, but not at a fixed time on a busy machine.
    await expect.poll(async () => (await listen()).status, { timeout: 10_000, interval: 50 }).toBe(200);
  });

  it('counts each principal apart, and refuses everyone with 503 once the server is full', async () => {
    await start({ authenticate, maxStreamsPerPrincipal: 2, maxStreams: 3 });
    expect((await listen({ authorization: 'Bearer alice' })).status).toBe(200);
    expect((await listen({ authorization: 'Bearer alice' })).status).toBe(200);
    expect((await listen({ authorization: 'Bearer alice' })).status).toBe(429);
    expect((await listen({ authorization: 'Bearer bob' })).status).toBe(200);
    const full = await listen({ authorization: 'Bearer bob' });
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).not.toBeNull();
    expect((await full.json()).error.message).toMatch(/Service Unavailable: too many open streams/);
    // Short requests are not streams: still served.
    const call = await http!.modern('tools/call', { name: 'a', arguments: {} }, { authorization: 'Bearer bob' });
    expect(call.status).toBe(200);
  });

  it('counts legacy GET streams in the same slots', async () => {
    const h = await start({ maxStreamsPerPrincipal: 2, maxStreams: 10 });
    expect((await listen()).status).toBe(200);
    const get = async () => {
      const sessionId = await h.initialize();
      const res = await fetch(h.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } });
      if (res.status === 200) open.push(res);
      return res;
    };
    expect((await get()).status).toBe(200);
    const refused = await get();
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.message).toMatch(/open streams/);
  });

  it('accepts a flood of listen streams only up to the cap: the rest are refused, the server keeps answering', async () => {
    const h = await start({ maxStreams: 20, maxStreamsPerPrincipal: 20 });
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () =>
        fetch(h.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            'mcp-method': 'subscriptions/listen',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: {}, _meta: modernMeta() } }),
        }).then((res) => {
          if (res.status === 200) open.push(res);
          else void res.body?.cancel();
          return res.status;
        }),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    expect((await h.modern('tools/call', { name: 'a', arguments: {} })).status).toBe(200);
  });
});
