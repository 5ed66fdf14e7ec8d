import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { startHttp } from '../helpers/http.js';
import { memoryLogger, MODERN } from '../helpers/wire.js';

/**
 * streamable-http.mdx "Sending Messages": the body of a POST is a request or a
 * notification; the client MUST NOT send responses. A legacy (2025-11-25)
 * session is the one place a client answers: requests the server sent on the
 * session's streams (elicitation, sampling, roots).
 */
let http: Awaited<ReturnType<typeof startHttp>>;
beforeAll(async () => {
  http = await startHttp(new ToolServer({ logger: memoryLogger().logger, audit: false }));
});
afterAll(() => http.close());

const modernHeaders = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' };

describe('JSON-RPC responses POSTed by a client', () => {
  it.each([
    ['a result with modern headers', { jsonrpc: '2.0', id: 1, result: {} }, modernHeaders],
    ['an error with modern headers', { jsonrpc: '2.0', id: 'x', error: { code: -1, message: 'no' } }, modernHeaders],
    ['a result with no MCP headers at all', { jsonrpc: '2.0', id: 2, result: { content: [] } }, {}],
    ['a result naming a legacy version but no session', { jsonrpc: '2.0', id: 3, result: {} }, { 'mcp-protocol-version': '2025-11-25' }],
  ])('refuses %s outside a legacy session with 400 and -32600', async (_label, body, headers) => {
    const res = await http.post(body, headers);
    expect(res.status).toBe(400);
    const answer = await res.json();
    expect(answer.error.code).toBe(-32600);
    expect(answer.error.message).toMatch(/must not send JSON-RPC responses/);
    expect('id' in answer).toBe(false);
  });

  it('takes a response on a legacy session (it may answer a server request) with 202', async () => {
    const sessionId = await http.initialize();
    const res = await http.post({ jsonrpc: '2.0', id: 'toolwright-1', result: {} }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
    expect(res.status).toBe(202);
  });

  it('answers a response naming an unknown session with 404', async () => {
    const res = await http.post({ jsonrpc: '2.0', id: 1, result: {} }, { 'mcp-session-id': 'nope', 'mcp-protocol-version': '2025-11-25' });
    expect(res.status).toBe(404);
  });

  it('still accepts notifications without a session with 202 (the spec allows them; they change nothing)', async () => {
    const res = await http.post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'notifications/cancelled' },
    );
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });
});
