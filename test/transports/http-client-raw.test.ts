import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, McpRpcError, ProtocolViolationError, ToolClient, type ToolClientOptions } from '../../src/client.js';

type Msg = Record<string, any>;
interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  body?: Msg;
}
/** Handles one HTTP request; `body` is the parsed JSON-RPC message (undefined for GET/DELETE). */
type Handler = (seen: Seen, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise((r) => {
          s.closeAllConnections();
          s.close(r);
        }),
    ),
  );
});

/** A hand-written HTTP server that records every request and answers as the test says. */
async function rawServer(handler: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const entry: Seen = { method: req.method ?? '', headers: req.headers, body: text ? JSON.parse(text) : undefined };
      seen.push(entry);
      handler(entry, res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const result = (id: unknown, value: unknown) => ({ jsonrpc: '2.0', id, result: value });

const LEGACY_INIT = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'legacy-http', version: '1' } };
const DISCOVER = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'public' };

/** A legacy sessionful server, like the 1.x SDK: 400 with a non-modern error before initialize. */
function legacyHandler(options: { expireOnce?: boolean } = {}): Handler {
  let expired = false;
  return ({ method, headers, body }, res) => {
    if (method === 'DELETE') return void res.writeHead(200).end();
    // No stream at GET: streamable-http.mdx says such a server answers 405.
    if (method === 'GET') return void res.writeHead(405, { allow: 'POST, DELETE' }).end();
    if (body?.method === 'initialize') return json(res, 200, result(body.id, LEGACY_INIT), { 'mcp-session-id': 'sess-1' });
    if (headers['mcp-session-id'] !== 'sess-1') {
      return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } });
    }
    if (options.expireOnce && !expired && body?.method === 'tools/list') {
      expired = true;
      return json(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
    }
    if (!('id' in body!)) return void res.writeHead(202).end();
    // Answer over SSE, with a comment, CRLF line ends and a server ping first.
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': keep-alive\r\n\r\n');
    res.write(`event: message\r\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 'ping-1', method: 'ping' })}\r\n\r\n`);
    res.end(`data: ${JSON.stringify(result(body!.id, { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }))}\r\n\r\n`);
  };
}

async function connect(url: string, options: ToolClientOptions = {}) {
  const warnings: string[] = [];
  const client = await ToolClient.connect({ url, headers: { Authorization: 'Bearer t0k' } }, { onWarning: (w) => warnings.push(w), ...options });
  return { client, warnings };
}

describe('HTTP era detection', () => {
  it('falls back to initialize on a 400 without a modern error, then uses the session and ends it with DELETE', async () => {
    const { url, seen } = await rawServer(legacyHandler());
    const { client } = await connect(url);
    expect([client.era, client.protocolVersion]).toEqual(['legacy', '2025-11-25']);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo']);
    await client.close();
    const list = seen.find((s) => s.body?.method === 'tools/list')!;
    expect(list.headers).toMatchObject({ 'mcp-session-id': 'sess-1', 'mcp-protocol-version': '2025-11-25', authorization: 'Bearer t0k' });
    expect(list.headers['mcp-method']).toBeUndefined();
    expect(seen.find((s) => s.body?.method === 'initialize')!.headers['mcp-protocol-version']).toBeUndefined();
    await expect.poll(() => seen.find((s) => s.body?.id === 'ping-1')?.body).toMatchObject({ result: {} });
    expect(seen.find((s) => s.method === 'DELETE')).toMatchObject({ headers: { 'mcp-session-id': 'sess-1' } });
  });

  it('tells a legacy server about a timed-out call with notifications/cancelled', async () => {
    const base = legacyHandler();
    const { url, seen } = await rawServer((entry, res) => {
      if (entry.body?.method === 'tools/call') return; // never answers
      base(entry, res);
    });
    const { client } = await connect(url);
    await client.listTools();
    await expect(client.callTool('echo', {}, { timeoutMs: 100 })).rejects.toThrow(/timed out/);
    const call = seen.find((s) => s.body?.method === 'tools/call')!;
    await expect.poll(() => seen.find((s) => s.body?.method === 'notifications/cancelled')?.body).toMatchObject({ params: { requestId: call.body!.id } });
    await client.close();
  });

  it('starts a new session when the server answers 404 for the old one', async () => {
    const { url, seen } = await rawServer(legacyHandler({ expireOnce: true }));
    const { client } = await connect(url);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo']);
    expect(seen.filter((s) => s.body?.method === 'initialize')).toHaveLength(2);
    await client.close();
  });

  it('does not fall back on a recognized modern error (404 with -32601)', async () => {
    const { url, seen } = await rawServer(({ body }, res) =>
      json(res, 404, { jsonrpc: '2.0', id: body?.id, error: { code: -32601, message: 'Method not found' } }),
    );
    const err = await connect(url).catch((e) => e);
    expect(err).toBeInstanceOf(McpRpcError);
    expect([err.code, err.httpStatus]).toEqual([-32601, 404]);
    expect(seen.some((s) => s.body?.method === 'initialize')).toBe(false);
  });

  it('does not fall back on a server error (500 without JSON)', async () => {
    const { url } = await rawServer((_seen, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded'));
    const err = await connect(url).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect([err.reason, err.httpStatus]).toEqual(['http', 500]);
    expect(err.message).toMatch(/HTTP 500.*upstream exploded/);
  });

  it('reports an unreachable server as a network failure', async () => {
    const { url } = await rawServer(() => {});
    await new Promise((r) => servers.pop()!.close(r));
    const err = await connect(url).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.reason).toBe('network');
  });
});

describe('modern HTTP requests', () => {
  const tools = [
    {
      name: 'sql',
      inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'integer', 'x-mcp-header': 'N' } } },
    },
    { name: 'bad_number', inputSchema: { type: 'object', properties: { x: { type: 'number', 'x-mcp-header': 'X' } } } },
    {
      name: 'bad_dupe',
      inputSchema: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'A' }, b: { type: 'string', 'x-mcp-header': 'a' } } },
    },
  ];
  const modern: Handler = ({ body }, res) => {
    if (body?.method === 'server/discover') return json(res, 200, result(body.id, DISCOVER));
    if (body?.method === 'tools/list') return json(res, 200, result(body.id, { resultType: 'complete', tools, ttlMs: 0 }));
    return json(res, 200, result(body!.id, { resultType: 'complete', content: [] }));
  };

  it('mirrors method, name and x-mcp-header parameters into headers', async () => {
    const { url, seen } = await rawServer(modern);
    const { client } = await connect(url);
    await client.callTool('sql', { region: 'eu-west', n: 3 });
    await client.callTool('naïve', { region: 'ignored: not listed' });
    const [sql, naive] = seen.filter((s) => s.body?.method === 'tools/call');
    expect(sql.headers).toMatchObject({
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'sql',
      'mcp-param-region': 'eu-west',
      'mcp-param-n': '3',
    });
    expect(naive.headers['mcp-name']).toBe(`=?base64?${Buffer.from('naïve').toString('base64')}?=`);
    expect(naive.headers['mcp-param-region']).toBeUndefined();
    await client.close();
  });

  it('leaves out tools whose x-mcp-header annotations are invalid, with a warning', async () => {
    const { url } = await rawServer(modern);
    const { client, warnings } = await connect(url);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['sql']);
    expect(warnings.find((w) => w.includes('"bad_number"'))).toMatch(/number/);
    expect(warnings.find((w) => w.includes('"bad_dupe"'))).toMatch(/declared twice/);
    await client.close();
  });

  it('cancels a timed-out modern call by closing the stream, without notifications/cancelled', async () => {
    let closedByClient = false;
    const { url, seen } = await rawServer((entry, res) => {
      if (entry.body?.method !== 'tools/call') return modern(entry, res);
      res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
      res.on('close', () => (closedByClient = true));
    });
    const { client } = await connect(url);
    await expect(client.callTool('sql', {}, { timeoutMs: 100 })).rejects.toThrow(/timed out after 100 ms/);
    await expect.poll(() => closedByClient).toBe(true);
    expect(seen.some((s) => s.body?.method === 'notifications/cancelled')).toBe(false);
    await client.close();
  });

  it('fails calls still in flight when the client closes', async () => {
    const { url } = await rawServer((entry, res) => {
      if (entry.body?.method !== 'tools/call') modern(entry, res);
    });
    const { client } = await connect(url);
    const call = client.callTool('sql');
    await new Promise((r) => setTimeout(r, 50));
    await client.close();
    await expect(call).rejects.toMatchObject({ name: 'ConnectionError', reason: 'closed' });
  });

  it('refuses a response larger than maxMessageBytes', async () => {
    const { url } = await rawServer(({ body }, res) => {
      if (body?.method === 'server/discover') return json(res, 200, result(body.id, DISCOVER));
      json(res, 200, result(body!.id, { tools: [{ name: 'x', description: 'y'.repeat(200_000), inputSchema: {} }] }));
    });
    const { client } = await connect(url, { maxMessageBytes: 100_000 });
    await expect(client.listTools()).rejects.toBeInstanceOf(ProtocolViolationError);
    await client.close();
  });
});
