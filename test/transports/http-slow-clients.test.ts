import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import type { HttpServeOptions } from '../../src/transports/http-server.js';
import { readSse, startHttp } from '../helpers/http.js';
import { memoryLogger, MODERN, modernMeta } from '../helpers/wire.js';

let http: Awaited<ReturnType<typeof startHttp>> | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await http?.close();
  http = undefined;
});

const newServer = () =>
  new ToolServer({
    logger: memoryLogger().logger,
    audit: false,
    tools: [
      { name: 'echo', description: 'x', inputSchema: { type: 'object' }, handler: () => 'ok' },
      { name: 'slow', description: 'x', inputSchema: { type: 'object' }, handler: () => new Promise((r) => setTimeout(() => r('done'), 1_200)) },
    ],
  });

async function start(options: HttpServeOptions) {
  http = await startHttp(newServer(), options);
  return http;
}

/** A raw TCP client: what it received, and a promise of its closing. */
function open(url: string, localAddress?: string) {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) });
  sockets.push(socket);
  let received = '';
  socket.on('data', (d) => (received += d));
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => {
    const started = Date.now();
    socket.once('close', () => resolve(Date.now() - started));
  });
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, closed, connected, received: () => received };
}

/** Resolves with how long `closed` took, or rejects after `ms`. */
const within = (closed: Promise<number>, ms: number) =>
  Promise.race([closed, new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`still open after ${ms} ms`)), ms))]);

const callBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: modernMeta() } });
const callHead = (host: string, extra = '') =>
  `POST /mcp HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: ${MODERN}\r\nmcp-method: tools/call\r\nmcp-name: echo\r\n${extra}`;

describe('slow HTTP clients', () => {
  it('answers 408 and closes connections that trickle their headers, and ones that send nothing', async () => {
    const { url } = await start({ headersTimeoutMs: 300, requestTimeoutMs: 2_000 });
    const tricklers = Array.from({ length: 20 }, () => open(url));
    const silent = open(url);
    await Promise.all(tricklers.map((t) => t.connected));
    const head = callHead(new URL(url).host);
    let i = 0;
    const timer = setInterval(() => {
      for (const t of tricklers) if (!t.socket.destroyed) t.socket.write(head[i % head.length]);
      i++;
    }, 40);
    try {
      const times = await Promise.all([...tricklers, silent].map((t) => within(t.closed, 3_000)));
      expect(Math.max(...times)).toBeLessThan(3_000);
    } finally {
      clearInterval(timer);
    }
    for (const t of tricklers) expect(t.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('answers 408 and closes a connection whose body arrives at a trickle', async () => {
    const { url } = await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const t = open(url);
    await t.connected;
    t.socket.write(`${callHead(new URL(url).host, 'content-length: 1000000\r\n')}\r\n`);
    const timer = setInterval(() => t.socket.destroyed || t.socket.write('x'), 40);
    try {
      await within(t.closed, 3_000);
    } finally {
      clearInterval(timer);
    }
    expect(t.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const { url } = await start({ keepAliveTimeoutMs: 200 });
    const t = open(url);
    await t.connected;
    t.socket.write(`${callHead(new URL(url).host, `content-length: ${callBody.length}\r\n`)}\r\n${callBody}`);
    const elapsed = await within(t.closed, 3_000);
    expect(t.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(elapsed).toBeGreaterThanOrEqual(150);
  });

  it('does not cut answers that take longer than the request deadline: a slow call, a listen stream', async () => {
    const server = newServer();
    http = await startHttp(server, { headersTimeoutMs: 200, requestTimeoutMs: 300, keepAliveTimeoutMs: 200 });
    const listen = await http.modern('subscriptions/listen', { notifications: { toolsListChanged: true } });
    const slow = await http.modern('tools/call', { name: 'slow', arguments: {} });
    expect((await slow.json()).result.content[0].text).toBe('done');
    server.tools.add({ name: 'late', description: 'x', inputSchema: { type: 'object' }, handler: () => 'x' });
    const messages = await readSse(listen, (m) => m.length >= 2);
    expect(messages.map((m) => m.method)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
  });

  it('answers 413 to an endless chunked body and closes instead of reading the rest', async () => {
    const { url } = await start({ maxBodyBytes: 64 * 1024 });
    const t = open(url);
    await t.connected;
    t.socket.write(`${callHead(new URL(url).host, 'transfer-encoding: chunked\r\n')}\r\n`);
    const chunk = `10000\r\n${'a'.repeat(0x10000)}\r\n`;
    let sent = 0;
    const timer = setInterval(() => {
      if (t.socket.destroyed || !t.socket.writable) return;
      t.socket.write(chunk);
      sent += 0x10000;
    }, 5);
    try {
      await within(t.closed, 3_000);
    } finally {
      clearInterval(timer);
    }
    expect(t.received()).toMatch(/^HTTP\/1\.1 413/);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('connection caps', () => {
  it('answers 503 and closes a connection past the per-address cap; a freed slot admits the next', async () => {
    const { url } = await start({ maxConnectionsPerAddress: 3, headersTimeoutMs: 5_000 });
    const held = [open(url), open(url), open(url)];
    await Promise.all(held.map((h) => h.connected));
    await new Promise((r) => setTimeout(r, 50));
    const extra = open(url);
    await within(extra.closed, 2_000);
    expect(extra.received()).toMatch(/^HTTP\/1\.1 503/);
    expect(extra.received()).toMatch(/retry-after: \d+/i);
    // Another address is not affected (Linux routes all of 127/8 to loopback).
    const other = open(url, '127.0.0.2');
    await other.connected;
    held[0].socket.destroy();
    await held[0].closed;
    await new Promise((r) => setTimeout(r, 50));
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
      body: callBody,
    });
    expect(res.status).toBe(200);
    expect(other.socket.destroyed).toBe(false);
  });

  it('answers 503 and closes a connection past the server-wide cap, whatever its address, and never handles what it sent', async () => {
    const server = newServer();
    let calls = 0;
    server.tools.add({ name: 'count', description: 'x', inputSchema: { type: 'object' }, handler: () => String(++calls) });
    http = await startHttp(server, { maxConnections: 2, headersTimeoutMs: 5_000 });
    const url = http.url;
    const held = [open(url, '127.0.0.3'), open(url, '127.0.0.4')];
    await Promise.all(held.map((h) => h.connected));
    await new Promise((r) => setTimeout(r, 50));
    const extra = open(url, '127.0.0.5');
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'count', arguments: {}, _meta: modernMeta() } });
    extra.socket.write(
      `POST /mcp HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-type: application/json\r\nmcp-protocol-version: ${MODERN}\r\nmcp-method: tools/call\r\nmcp-name: count\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    await within(extra.closed, 2_000);
    expect(extra.received()).toMatch(/^HTTP\/1\.1 503/);
    expect(calls).toBe(0);
  });
});
