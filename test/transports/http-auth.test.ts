import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { startHttp } from '../helpers/http.js';
import { memoryLogger } from '../helpers/wire.js';

let http: Awaited<ReturnType<typeof startHttp>>;
afterEach(() => http?.close());

const tokens: Record<string, string> = { 'Bearer alice-token': 'alice', 'Bearer bob-token': 'bob' };
const authenticate = (req: IncomingMessage) => tokens[req.headers.authorization ?? ''];

function makeServer() {
  return new ToolServer({
    logger: memoryLogger().logger,
    limits: { maxResultBytes: 2048 },
    tools: [
      { name: 'whoami', description: 'Names the caller.', inputSchema: { type: 'object' }, handler: (_a, ctx) => ctx.principal ?? 'anonymous' },
      { name: 'big', description: 'A large result.', inputSchema: { type: 'object' }, handler: () => 'z'.repeat(10_000) },
    ],
  });
}

describe('authenticated HTTP', () => {
  it('answers 401 with WWW-Authenticate when the hook knows no caller', async () => {
    http = await startHttp(makeServer(), { authenticate });
    const res = await http.modern('tools/list');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('gives the handler the principal', async () => {
    http = await startHttp(makeServer(), { authenticate });
    const res = await http.modern('tools/call', { name: 'whoami', arguments: {} }, { authorization: 'Bearer alice-token' });
    expect((await res.json()).result.content[0].text).toBe('alice');
  });

  it('keeps a legacy session to the caller who opened it', async () => {
    http = await startHttp(makeServer(), { authenticate });
    const init = await http.post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { authorization: 'Bearer alice-token' },
    );
    const sessionId = init.headers.get('mcp-session-id')!;
    const asBob = await http.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': sessionId, authorization: 'Bearer bob-token' });
    expect(asBob.status).toBe(404);
    const asAlice = await http.post({ jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-session-id': sessionId, authorization: 'Bearer alice-token' });
    expect(asAlice.status).toBe(200);
  });

  it('lets only the caller who opened a legacy session end it with DELETE', async () => {
    http = await startHttp(makeServer(), { authenticate });
    const init = await http.post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { authorization: 'Bearer alice-token' },
    );
    const sessionId = init.headers.get('mcp-session-id')!;
    const end = (who: string) => fetch(http.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, authorization: `Bearer ${who}-token` } });
    expect((await end('bob')).status).toBe(404);
    const ping = await http.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': sessionId, authorization: 'Bearer alice-token' });
    expect(ping.status).toBe(200);
    expect((await end('alice')).status).toBe(200);
    expect((await end('alice')).status).toBe(404);
  });

  it('serves a stored large result only to the caller who made it', async () => {
    http = await startHttp(makeServer(), { authenticate });
    const call = await http.modern('tools/call', { name: 'big', arguments: {} }, { authorization: 'Bearer alice-token' });
    const link = (await call.json()).result.content.find((b: { type: string }) => b.type === 'resource_link');
    const read = (who: string) => http.modern('resources/read', { uri: link.uri }, { authorization: `Bearer ${who}-token` }).then((r) => r.json());
    expect((await read('bob')).error.code).toBe(-32602);
    expect((await read('alice')).result.contents[0].text).toHaveLength(10_000);
  });
});
