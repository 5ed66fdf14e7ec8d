/**
 * Calls relayed to an HTTP upstream: concurrent calls overlap there (nothing serializes them),
 * each is one tools/call on kept-alive connections (no listing, handshake or new connection per
 * call), and the fetch the gateway uses for it (node-fetch.ts) behaves as the global one where the
 * client relies on it: redirects followed, unreachable servers a TypeError with the code, aborts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { mount } from '../../src/gateway/index.js';
import { nodeFetch } from '../../src/gateway/node-fetch.js';
import { ToolServer } from '../../src/server/server.js';
import { createInMemoryPair } from '../../src/testing.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { freePort } from '../helpers/free-port.js';
import { gatewayServer } from './helpers.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

/** A toolwright upstream over HTTP whose `meet` tool answers once `together` calls are in at once (a serializing gateway never gets there). */
async function barrierUpstream(together: number) {
  let inFlight = 0;
  let peak = 0;
  const methods: string[] = [];
  let connections = 0;
  let open!: () => void;
  const allIn = new Promise<void>((resolve) => (open = resolve));
  const upstream = new ToolServer({ name: 'barrier', version: '1.0.0', audit: false, tasks: false });
  upstream.tools.add({
    name: 'meet',
    description: 'Answers once enough calls are in flight together',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    handler: async ({ n }: { n: number }) => {
      peak = Math.max(peak, ++inFlight);
      if (inFlight >= together) open();
      await allIn;
      inFlight--;
      return `met ${n}`;
    },
  });
  upstream.use((ctx, next) => {
    methods.push(ctx.method);
    return next();
  });
  const http: HttpServerHandle = await serveHttp(upstream, { host: '127.0.0.1', port: 0 });
  http.server.on('connection', () => connections++);
  closers.push(() => http.close());
  return { url: `http://127.0.0.1:${http.port}/mcp`, methods, peak: () => peak, connections: () => connections };
}

describe('calls relayed to an HTTP upstream', () => {
  it('16 concurrent calls overlap at the upstream, one tools/call each, on connections kept alive', async () => {
    const upstream = await barrierUpstream(16);
    const { server } = gatewayServer();
    const m = mount(server, 'up', { url: upstream.url });
    closers.push(() => m.close());
    await m.ready;
    const { client, close } = await createInMemoryPair(server);
    closers.push(close);
    const before = upstream.methods.length;
    const round = () => Promise.all(Array.from({ length: 16 }, (_, n) => client.callTool('up_meet', { n }, { timeoutMs: 10_000 })));
    const first = await round();
    expect(first.map((r) => r.content)).toEqual(Array.from({ length: 16 }, (_, n) => [{ type: 'text', text: `met ${n}` }]));
    expect(upstream.peak()).toBe(16);
    const connectionsAfterFirst = upstream.connections();
    await round();
    // One request upstream per call: no tools listing, discovery or handshake repeated per call
    // (the first listing of prompts and resources may still be under way after \`ready\`).
    const after = upstream.methods.slice(before).filter((m) => !/^(prompts|resources|resources\/templates)\/list$/.test(m));
    expect(after).toEqual(Array(32).fill('tools/call'));
    // The second round reuses the first round's connections.
    expect(upstream.connections()).toBe(connectionsAfterFirst);
  }, 30_000);
});

describe('the fetch the gateway speaks HTTP upstreams with', () => {
  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const s: Server = createServer(handler);
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => s.close(resolve)));
    closers.push(async () => s.closeAllConnections());
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  }

  it('sends the method, headers and body, and gives status, headers and body back', async () => {
    const base = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json', 'x-seen': `${req.method} ${req.headers['mcp-method']} ${body}` });
        res.end('{"ok":true}');
      });
    });
    const response = await nodeFetch(new URL(`${base}/mcp`), { method: 'POST', headers: { 'Mcp-Method': 'tools/call' }, body: 'héllo' });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-seen')).toBe('POST tools/call héllo');
    expect(await response.json()).toEqual({ ok: true });
  });

  it('follows a redirect as fetch does, and a 204 has no body', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/old') res.writeHead(307, { location: '/new' }).end();
      else if (req.url === '/empty') res.writeHead(204).end();
      else req.on('data', () => {}).on('end', () => res.end(`at ${req.url} by ${req.method}`));
    });
    const moved = await nodeFetch(`${base}/old`, { method: 'POST', body: 'x' });
    expect(await moved.text()).toBe('at /new by POST');
    const empty = await nodeFetch(`${base}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('an unreachable server is a TypeError whose cause has the code, as from fetch', async () => {
    const port = await freePort();
    const failure = await nodeFetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError & { cause: { code: string } }).cause.code).toBe('ECONNREFUSED');
  });

  it('a large body arrives whole, and one cut off before its end fails the read with the response error (as Readable.toWeb gave)', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    const base = await serve((req, res) => {
      if (req.url === '/big') return void res.end(big);
      res.writeHead(200, { 'content-length': '100' });
      res.write('0123456789', () => setTimeout(() => res.socket?.destroy(), 20));
    });
    expect((await (await nodeFetch(`${base}/big`)).text()).length).toBe(big.length);
    const reader = (await nodeFetch(`${base}/cut`)).body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('0123456789');
    await expect(reader.read()).rejects.toMatchObject({ message: 'aborted', code: 'ECONNRESET' });
  });

  it('an abort rejects with the signal reason, before the answer and while its body streams', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/slow') return; // never answers
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n'); // and never ends
    });
    const early = new AbortController();
    const pending = nodeFetch(`${base}/slow`, { signal: early.signal });
    early.abort(new Error('stopped early'));
    await expect(pending).rejects.toThrow('stopped early');
    const late = new AbortController();
    const streaming = await nodeFetch(`${base}/stream`, { signal: late.signal });
    const reader = streaming.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    late.abort(new Error('stopped late'));
    await expect(reader.read()).rejects.toThrow('stopped late');
  });
});
