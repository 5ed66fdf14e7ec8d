/**
 * An HTTP upstream that answers a call with one long SSE line: a large result in a single `data:`
 * line, or a line that never ends. Reading such a line once cost its length squared (the reader
 * searched the whole unfinished line again at every chunk): a 12 MiB result outlived a 10 s
 * timeout and a never-ending line held a core for ~30 s before the 16 MiB limit struck. Both must
 * now be decided long before the upstream's timeout.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mount } from '../../src/gateway/index.js';
import { createInMemoryPair } from '../../src/testing.js';
import { gatewayServer } from './helpers.js';

const MiB = 1024 * 1024;
const PIECE = 'x'.repeat(64 * 1024);
let upstream: Server;
let url: string;

/** A legacy-era Streamable HTTP server with two tools, answering calls as SSE written in 64 KiB pieces. */
function handle(req: IncomingMessage, res: ServerResponse): void {
  let body = '';
  req.on('data', (c: Buffer) => (body += c));
  req.on('end', () => {
    const message = body ? JSON.parse(body) : {};
    const json = (value: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.method !== 'POST') return void res.writeHead(405).end();
    if (message.id === undefined) return void res.writeHead(202).end();
    if (message.method === 'initialize')
      return json({
        jsonrpc: '2.0',
        id: message.id,
        result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'long-lines', version: '1' } },
      });
    if (message.method === 'tools/list')
      return json({ jsonrpc: '2.0', id: message.id, result: { tools: ['big', 'endless'].map((name) => ({ name, inputSchema: { type: 'object' } })) } });
    if (message.method !== 'tools/call') return json({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (message.params.name === 'big') {
      const text = PIECE.repeat((12 * MiB) / PIECE.length);
      const line = `data: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }] } })}\n\n`;
      for (let at = 0; at < line.length; at += PIECE.length) res.write(line.slice(at, at + PIECE.length));
      return void res.end();
    }
    // A line that never ends, written as fast as it is read.
    res.write('data: ');
    const more = () => {
      while (!res.destroyed && res.write(PIECE));
    };
    res.on('drain', more);
    more();
  });
}

beforeAll(async () => {
  upstream = createServer(handle);
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  url = `http://127.0.0.1:${(upstream.address() as { port: number }).port}/mcp`;
});
afterAll(async () => {
  upstream.closeAllConnections();
  upstream.close();
});

describe('long SSE lines from an HTTP upstream', () => {
  it('a 12 MiB result in one line arrives, and a line that never ends fails at the size limit, not the timeout', async () => {
    const { server } = gatewayServer({ limits: { maxResultBytes: 32 * MiB } });
    const m = mount(server, 'long', { url }, { timeoutMs: 10_000 });
    await m.ready;
    const { client, close } = await createInMemoryPair(server);
    try {
      const big = await client.callTool('long_big', {});
      expect(big.isError, JSON.stringify(big.content).slice(0, 200)).toBeFalsy();
      expect((big.content as Array<{ text: string }>)[0].text.length).toBe(12 * MiB);

      const endless = await client.callTool('long_endless', {});
      expect(endless.isError).toBe(true);
      expect((endless.content as Array<{ text: string }>)[0].text).toBe('upstream "long" failed: the server sent an event larger than the 16777216-byte limit');
    } finally {
      await close();
      await m.close();
    }
  }, 60_000);
});
