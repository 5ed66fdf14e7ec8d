/**
 * The sender the gateway's client speaks to HTTP upstreams with (node-send.ts): node:http read
 * straight into what the Streamable HTTP client needs, with the answers fetch gave it: headers as
 * Headers.get joins them, text capped and decoded as fetch's, redirects followed, an unreachable
 * server a TypeError with the code, aborts rejecting with the signal's reason.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClientTransport } from '../../src/client/transports/http-client.js';
import type { HttpSendInit } from '../../src/client/transports/http-send.js';
import { nodeFetch } from '../../src/gateway/node-fetch.js';
import { nodeSend } from '../../src/gateway/node-send.js';
import { ResponseTooLargeError } from '../../src/io/read-capped.js';
import { freePort } from '../helpers/free-port.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: (path: string) => URL; connections: () => number }> {
  const s: Server = createServer(handler);
  let connections = 0;
  s.on('connection', () => connections++);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => s.close(resolve)));
  closers.push(async () => s.closeAllConnections());
  const base = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return { url: (path) => new URL(path, base), connections: () => connections };
}

const post = (body: string, signal = new AbortController().signal): HttpSendInit => ({ method: 'POST', headers: { 'mcp-method': 'tools/call' }, body, signal });
const get = (signal = new AbortController().signal): HttpSendInit => ({ method: 'GET', headers: {}, signal });

describe('the sender the gateway speaks HTTP upstreams with', () => {
  it('sends the method, headers and body; gives the status, headers as Headers.get has them, and the text', async () => {
    const server = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.writeHead(201, 'Made', [
          ['content-type', 'application/json'],
          ['x-seen', `${req.method} ${req.headers['mcp-method']} ${body}`],
          ['x-twice', ' one '],
          ['X-Twice', 'two'],
        ]);
        res.end('\uFEFF{"ok":"é"}'); // a byte order mark: fetch's text() drops it
      });
    });
    const reply = await nodeSend(server.url('/mcp'), post('héllo'));
    expect([reply.status, reply.statusText, reply.ok]).toEqual([201, 'Made', true]);
    expect(reply.header('X-Seen')).toBe('POST tools/call héllo');
    expect(reply.header('x-twice')).toBe('one, two');
    expect(reply.header('x-absent')).toBeNull();
    expect(await reply.text(1024)).toBe('{"ok":"é"}');
  });

  it('adds what node:http adds from the URL: Host, the body length, Basic credentials unless an Authorization is given', async () => {
    const seen: Array<Record<string, string | string[] | undefined>> = [];
    const server = await serve((req, res) => {
      seen.push(req.headers);
      req.on('data', () => {}).on('end', () => res.end());
    });
    const base = server.url('/mcp?x=1');
    const withCredentials = new URL(`http://us%20er:p%40ss@${base.host}/mcp`);
    await (await nodeSend(base, post('héllo'))).text(16);
    await (await nodeSend(withCredentials, get())).text(16);
    await (await nodeSend(withCredentials, { ...get(), headers: { authorization: 'Bearer given' } })).text(16);
    expect(seen[0]).toMatchObject({ host: base.host, 'content-length': '6', 'mcp-method': 'tools/call' });
    expect(seen[1]).toMatchObject({ host: base.host, authorization: `Basic ${Buffer.from('us er:p@ss').toString('base64')}` });
    expect(seen[1]['content-length']).toBeUndefined();
    expect(seen[2].authorization).toBe('Bearer given');
  });

  it('follows a redirect as fetch does; a 204 has no body', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/old') res.writeHead(307, { location: '/new' }).end();
      else if (req.url === '/empty') res.writeHead(204).end();
      else req.on('data', () => {}).on('end', () => res.end(`at ${req.url} by ${req.method}`));
    });
    const moved = await nodeSend(server.url('/old'), post('x'));
    expect(await moved.text(1024)).toBe('at /new by POST');
    const empty = await nodeSend(server.url('/empty'), get());
    expect([empty.status, empty.ok]).toEqual([204, true]);
    expect(empty.stream()).toBeNull();
    expect(await empty.text(1024)).toBe('');
  });

  it("never takes the upstream's headers and the call to another origin: a redirect there, at any hop, is the answer", async () => {
    // fetch drops only Authorization on the way to another origin: an API key header and the call's arguments went along.
    const reached: Array<{ url?: string; key?: string | string[] }> = [];
    const elsewhere = await serve((req, res) => {
      reached.push({ url: req.url, key: req.headers['x-api-key'] });
      res.end('{}');
    });
    const upstream = await serve((req, res) => {
      if (req.url === '/mcp') res.writeHead(307, { location: elsewhere.url('/steal').href }).end();
      else if (req.url === '/hop') res.writeHead(307, { location: '/mcp' }).end();
      else req.on('data', () => {}).on('end', () => res.end(`at ${req.url}`));
    });
    const withKey = (): HttpSendInit => ({ ...post('{"secret":1}'), headers: { 'x-api-key': 'upstream-only' } });
    for (const start of ['/mcp', '/hop']) {
      const reply = await nodeSend(upstream.url(start), withKey());
      expect([reply.status, reply.header('location')]).toEqual([307, elsewhere.url('/steal').href]);
      const response = await nodeFetch(upstream.url(start), { method: 'POST', headers: { 'x-api-key': 'upstream-only' }, body: '{}' });
      expect(response.status).toBe(307);
    }
    expect(reached).toEqual([]);
  });

  it('an unreachable server is a TypeError whose cause has the code, as from fetch', async () => {
    const port = await freePort();
    const failure = await nodeSend(new URL(`http://127.0.0.1:${port}/mcp`), post('{}')).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError & { cause: { code: string } }).cause.code).toBe('ECONNREFUSED');
  });

  it('speaks TLS to an https upstream and verifies its certificate: one Node does not trust is refused', async () => {
    const fixtures = new URL('../fixtures/toolsets-net/', import.meta.url);
    const tls = createHttpsServer(
      { cert: readFileSync(new URL('public-test.pem', fixtures)), key: readFileSync(new URL('public-test-key.pem', fixtures)) },
      (_req, res) => res.end('{}'),
    );
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => tls.close(resolve)));
    const port = (tls.address() as AddressInfo).port;
    const failure = await nodeSend(new URL(`https://127.0.0.1:${port}/mcp`), post('{}')).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(TypeError);
    // Issued by the tests' own CA, which Node's list lacks: the handshake took place and the chain was refused.
    expect((failure as TypeError & { cause: { code: string } }).cause.code).toMatch(/VERIFY|CERT|SIGNATURE/);
  });

  it('text past the limit is refused, declared or not; a body cut off before its end fails, never reads as complete', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/declared') return void res.end('x'.repeat(2048));
      if (req.url === '/chunked') {
        res.write('x'.repeat(1000));
        return void setTimeout(() => res.end('x'.repeat(1000)), 10);
      }
      if (req.url === '/whole') return void res.end('y'.repeat(3 * 1024 * 1024));
      res.writeHead(200, { 'content-length': '100' });
      res.write('0123456789', () => setTimeout(() => res.socket?.destroy(), 20));
    });
    await expect((await nodeSend(server.url('/declared'), get())).text(1024)).rejects.toBeInstanceOf(ResponseTooLargeError);
    await expect((await nodeSend(server.url('/chunked'), get())).text(1500)).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect((await (await nodeSend(server.url('/whole'), get())).text(4 * 1024 * 1024)).length).toBe(3 * 1024 * 1024);
    await expect((await nodeSend(server.url('/cut'), get())).text(1024)).rejects.toThrow();
  });

  it('an abort rejects with the signal reason: before the answer, while the text is read, while the stream is read', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/slow') return; // never answers
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n'); // and never ends
    });
    const early = new AbortController();
    const pending = nodeSend(server.url('/slow'), get(early.signal));
    early.abort(new Error('stopped early'));
    await expect(pending).rejects.toThrow('stopped early');
    const reading = new AbortController();
    const text = (await nodeSend(server.url('/stream'), get(reading.signal))).text(1024);
    reading.abort(new Error('stopped reading'));
    await expect(text).rejects.toThrow('stopped reading');
    const late = new AbortController();
    const reader = (await nodeSend(server.url('/stream'), get(late.signal))).stream()!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    late.abort(new Error('stopped late'));
    await expect(reader.read()).rejects.toThrow('stopped late');
  });

  it('a discarded answer already received leaves its connection for the next request; one still coming is cut', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/accepted') return void req.on('data', () => {}).on('end', () => res.writeHead(202).end());
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n'); // and never ends
    });
    for (let i = 0; i < 3; i++) await (await nodeSend(server.url('/accepted'), post('{}'))).discard();
    expect(server.connections()).toBe(1);
    const streaming = await nodeSend(server.url('/open'), get());
    await streaming.discard();
    await (await nodeSend(server.url('/accepted'), post('{}'))).discard();
    expect(server.connections()).toBe(2);
  });

  it("in a client's transport, close() stops the requests in flight (answer awaited or streaming) with the closed error, and many at once raise no listener warning", async () => {
    const server = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const { id, method } = JSON.parse(body);
        if (method === 'quick') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
        if (method === 'stream') res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n');
        // 'wait' never answers; 'stream' never ends
      });
    });
    const transport = new HttpClientTransport({ url: server.url('/mcp') }, { send: nodeSend });
    const wire = { era: 'modern' as const, protocolVersion: '2026-07-28' };
    const send = (id: number, method: string) => transport.request({ jsonrpc: '2.0', id, method }, { wire, signal: new AbortController().signal });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      expect((await Promise.all(Array.from({ length: 24 }, (_, i) => send(i, 'quick')))).map((r) => r.message.id)).toEqual(
        Array.from({ length: 24 }, (_, i) => i),
      );
      const waiting = Array.from({ length: 12 }, (_, i) => send(100 + i, 'wait'));
      const streaming = send(200, 'stream');
      await new Promise((resolve) => setTimeout(resolve, 100));
      await transport.close();
      for (const call of [...waiting, streaming]) await expect(call).rejects.toMatchObject({ name: 'ConnectionError', reason: 'closed' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
