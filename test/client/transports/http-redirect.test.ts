import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolClient } from '../../../src/client.js';
import { createHttpHandler, type HttpHandler } from '../../../src/http.js';
import { ToolServer } from '../../../src/index.js';

// A redirect from an MCP server's URL: followed within the server's origin (a moved path), never
// to another origin, which would get the headers the user gave for this server (fetch drops only
// Authorization) and the request's body (a call's arguments).

const API_KEY = { 'x-api-key': 'key-for-the-mcp-server-only' };
let handler: HttpHandler;
let server: Server;
let elsewhere: Server;
let origin: string;
const reachedElsewhere: IncomingHttpHeaders[] = [];

async function listen(s: Server): Promise<string> {
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  return `http://127.0.0.1:${(s.address() as { port: number }).port}`;
}

beforeAll(async () => {
  handler = createHttpHandler(
    new ToolServer({ audit: false, tools: [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object' }, handler: () => 'ok' }] }),
  );
  // Another origin (another port) that records what reaches it.
  elsewhere = createServer((req, res) => {
    reachedElsewhere.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  const other = await listen(elsewhere);
  server = createServer((req, res) => {
    if (req.url === '/moved') return void res.writeHead(307, { location: '/mcp' }).end();
    if (req.url === '/away') return void res.writeHead(307, { location: `${other}/mcp` }).end();
    if (req.url === '/away-later') return void res.writeHead(308, { location: '/away' }).end();
    void handler.handle(req, res);
  });
  origin = await listen(server);
});

afterAll(async () => {
  await handler.close();
  server.closeAllConnections();
  server.close();
  elsewhere.closeAllConnections();
  elsewhere.close();
});

describe('an HTTP server that redirects', () => {
  it('a redirect within its origin is followed, with the headers and the body', async () => {
    const client = await ToolClient.connect({ url: `${origin}/moved`, headers: API_KEY });
    try {
      const result = await client.callTool('echo', {});
      expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    } finally {
      await client.close();
    }
  });

  it.each(['/away', '/away-later'])('a redirect to another origin (from %s) is not followed: nothing reaches it, and the client says why', async (path) => {
    const before = reachedElsewhere.length;
    const error = await ToolClient.connect({ url: `${origin}${path}`, headers: API_KEY }).then(
      async (client) => {
        await client.close();
        return undefined;
      },
      (err: Error) => err,
    );
    expect(error?.message).toMatch(/30[78]/);
    expect(reachedElsewhere.length).toBe(before);
  });
});
