import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, type HttpHandler } from '../../src/index.js';
import { ToolServer } from '../../src/server/server.js';
import { describeMounted, HEALTH_TEXT } from '../helpers/mounted-mcp.js';
import { readSse, sseMessages } from '../helpers/http.js';
import { memoryLogger, MODERN, modernMeta } from '../helpers/wire.js';

/**
 * What a fetch runtime does with a socket, written out: Node's request as a
 * Web Request (its signal aborts when the client goes away), the Response
 * written back as it streams.
 */
async function bridge(req: IncomingMessage, res: ServerResponse, fetchHandler: (request: Request, remoteAddress?: string) => Promise<Response>): Promise<void> {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    signal: controller.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
  } as RequestInit);
  const response = await fetchHandler(request, req.socket.remoteAddress);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  res.flushHeaders();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  } catch {
    // The handler ended the stream because the client went away.
  }
  res.end();
}

describeMounted('the fetch handler behind a node:http → Web Request bridge, with routes of its own', async (handler) => {
  const server = createServer((req, res) => {
    if (req.url === '/health') return void res.end(HEALTH_TEXT);
    if (req.url?.split('?')[0] !== handler.path) return void res.writeHead(404).end();
    bridge(req, res, (request, remoteAddress) => handler.fetch(request, { remoteAddress })).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
});

describe("createHttpHandler().fetch with Node's Request and Response", () => {
  let handler: HttpHandler;
  let release: () => void = () => {};
  const cancelled: string[] = [];
  let hangStarted = 0;
  beforeAll(async () => {
    const toolServer = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tools: [
        {
          name: 'gated',
          description: 'Reports progress, then waits for the test',
          inputSchema: { type: 'object' },
          handler: async (_args, ctx) => {
            ctx.progress(1, 2, 'started');
            await new Promise<void>((resolve) => (release = resolve));
            return 'released';
          },
        },
        {
          name: 'hang',
          description: 'Runs until the client goes away',
          inputSchema: { type: 'object' },
          handler: (_args, ctx) =>
            new Promise((resolve) => {
              hangStarted++;
              ctx.progress(1);
              ctx.signal.addEventListener('abort', () => {
                cancelled.push('hang');
                resolve('gone');
              });
            }),
        },
      ],
    });
    handler = createHttpHandler(toolServer, { maxBodyBytes: 1024, allowedOrigins: ['http://app.example'] });
  });
  afterAll(() => handler.close());

  let nextId = 1;
  const modern = (method: string, params: Record<string, unknown> = {}, init: RequestInit = {}, meta: Record<string, unknown> = {}) =>
    new Request('http://mcp.example/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': method,
        ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
        ...(init.headers as Record<string, string>),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: modernMeta(meta) } }),
      signal: init.signal,
    });

  it('answers a request with a JSON Response', async () => {
    const res = await handler.fetch(modern('tools/list'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect((await res.json()).result.tools.map((t: { name: string }) => t.name)).toEqual(['gated', 'hang']);
  });

  it('streams a call that notifies as SSE: the first event arrives while the call still runs', async () => {
    const res = await handler.fetch(modern('tools/call', { name: 'gated', arguments: {} }, {}, { progressToken: 'p' }));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!sseMessages(text).length) text += decoder.decode((await reader.read()).value, { stream: true });
    expect(sseMessages(text)[0]).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'p', progress: 1, message: 'started' } });
    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(sseMessages(text).at(-1)).toMatchObject({ result: { content: [{ type: 'text', text: 'released' }] } });
  });

  it("cancels the call when the request's signal aborts (the client went away)", async () => {
    const controller = new AbortController();
    const res = await handler.fetch(modern('tools/call', { name: 'hang', arguments: {} }, { signal: controller.signal }, { progressToken: 'h' }));
    await readSse(res, (messages) => messages.length > 0);
    controller.abort();
    await expect.poll(() => cancelled).toEqual(['hang']);
  });

  it('cancels a call to be answered as JSON when the signal aborts while it runs, even before the face watches it', async () => {
    const controller = new AbortController();
    const [startedBefore, cancelledBefore] = [hangStarted, cancelled.length];
    // No progress token: the answer is one JSON body, so the face watches the signal only once
    // the answer is slow. Aborting at once checks that an abort before the watch is not missed.
    const answer = handler.fetch(modern('tools/call', { name: 'hang', arguments: {} }, { signal: controller.signal }));
    await expect.poll(() => hangStarted).toBe(startedBefore + 1);
    controller.abort();
    await expect.poll(() => cancelled.length).toBe(cancelledBefore + 1);
    expect((await answer).status).toBe(499);
  });

  it('never reads the signal of a request answered at once (on Node, reading it is what a Request costs most)', async () => {
    const request = modern('tools/list');
    const signal = request.signal;
    let reads = 0;
    Object.defineProperty(request, 'signal', {
      get: () => {
        reads++;
        return signal;
      },
    });
    expect((await handler.fetch(request)).status).toBe(200);
    // Past the moment the face would start watching a slow answer.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(reads).toBe(0);
  });

  it('refuses a body over the limit with 413 without reading it all', async () => {
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(512).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const res = await handler.fetch(
      new Request('http://mcp.example/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: endless, duplex: 'half' } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect((await res.json()).error.message).toBe('Payload Too Large: the body exceeds 1024 bytes');
    // The endless body is let go once the answer is out, after a few chunks past the limit.
    await expect.poll(() => cancelled).toBe(true);
    expect(pulled).toBeLessThan(64);
  });

  it('refuses a foreign Origin with 403, and answers 404 for a path it does not own', async () => {
    expect((await handler.fetch(modern('tools/list', {}, { headers: { origin: 'http://evil.example' } }))).status).toBe(403);
    expect((await handler.fetch(modern('tools/list', {}, { headers: { origin: 'http://app.example' } }))).status).toBe(200);
    const elsewhere = await handler.fetch(new Request('http://mcp.example/other'));
    expect(elsewhere.status).toBe(404);
  });

  it('serves a legacy session: initialize, its GET stream as a streaming body, DELETE ends both', async () => {
    const init = await handler.fetch(
      new Request('http://mcp.example/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      }),
    );
    const sessionId = init.headers.get('mcp-session-id')!;
    expect((await init.json()).result.protocolVersion).toBe('2025-11-25');
    const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const stream = await handler.fetch(new Request('http://mcp.example/mcp', { headers: { accept: 'text/event-stream', ...session } }));
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.headers.get('connection')).toBeNull();
    const ended = await handler.fetch(new Request('http://mcp.example/mcp', { method: 'DELETE', headers: session }));
    expect(ended.status).toBe(200);
    // The stream's body completes once the session ends.
    expect(await stream.text()).toBe('');
  });
});
