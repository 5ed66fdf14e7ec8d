import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { rawRequest, startHttp } from '../helpers/http.js';
import { memoryLogger, MODERN, modernMeta } from '../helpers/wire.js';

let http: Awaited<ReturnType<typeof startHttp>>;
beforeAll(async () => {
  const server = new ToolServer({ logger: memoryLogger().logger, audit: false });
  server.tools.add({
    name: 'echo',
    description: 'x',
    inputSchema: { type: 'object', properties: { text: { type: 'string', 'x-mcp-header': 'Text' } } },
    handler: ({ text }) => String(text),
  });
  http = await startHttp(server, { maxBodyBytes: 64 * 1024 });
});
afterAll(() => http.close());

const weird = [
  '',
  ' ',
  'x'.repeat(4000),
  '=?base64?!!!?=',
  '=?base64?ZWNobw==?=',
  '2026-07-28, 2025-11-25',
  'tools/call ',
  '../../etc/passwd',
  '\u00e9cho',
  '%00',
];

describe('hostile HTTP requests', () => {
  it('answers every odd combination of headers and bodies with a defined status and a JSON-RPC body, and keeps serving', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' }, _meta: modernMeta() } });
    const allowed = new Set([200, 202, 400, 403, 404, 405, 406, 409, 413, 415]);
    let n = 0;
    for (const header of ['mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-param-text', 'mcp-session-id', 'content-type', 'origin', 'host']) {
      for (const value of weird) {
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'echo',
          'mcp-param-text': 'a',
          host: new URL(http.url).host,
        };
        headers[header] = value;
        n++;
        let res: { status: number; body: string };
        try {
          res = await rawRequest(http.url, { headers, body: n % 3 === 1 ? body.slice(0, 40) : body });
        } catch (err) {
          // Node itself refuses to send some values (non-ASCII, empty Host): nothing reached the server.
          expect((err as NodeJS.ErrnoException).code).toMatch(/^ERR_(INVALID_CHAR|HTTP_INVALID_HEADER_VALUE)$/);
          continue;
        }
        expect(allowed.has(res.status), `${header}: ${JSON.stringify(value).slice(0, 40)} → ${res.status}`).toBe(true);
        if (res.body) {
          const parsed = JSON.parse(res.body);
          expect(parsed.jsonrpc).toBe('2.0');
          expect(JSON.stringify(parsed)).not.toMatch(/ at .*\.(ts|js):\d+/);
        }
      }
    }
    const ok = await http.modern('tools/call', { name: 'echo', arguments: { text: 'fine' } }, { 'mcp-param-text': 'fine' });
    expect((await ok.json()).result.content[0].text).toBe('fine');
  });

  it('refuses a deeply nested body with 400 and -32700 before parsing it, and keeps serving', async () => {
    const depth = 20_000; // 40 KB, well under the body limit
    const res = await http.post(
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":${'['.repeat(depth)}${']'.repeat(depth)}}}}`,
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: -32700, message: expect.stringMatching(/deeper than 128/) });
    const ok = await http.modern('tools/call', { name: 'echo', arguments: { text: 'still' } }, { 'mcp-param-text': 'still' });
    expect((await ok.json()).result.content[0].text).toBe('still');
  });
});
