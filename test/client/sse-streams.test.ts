import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, ToolClient, type LogMessage } from '../../src/client.js';
import { event, json, LEGACY_INIT, sse, startScriptedHttp, TOOLS, type Exchange, type Json } from '../helpers/scripted-http.js';

const SESSION = 'session-1';
const DONE = (id: unknown, text = 'done') => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
const DISCOVER = (id: unknown) => ({
  jsonrpc: '2.0',
  id,
  result: {
    resultType: 'complete',
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: {} },
    ttlMs: 0,
    cacheScope: 'public',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } },
  },
});

type Handler = (req: IncomingMessage, res: ServerResponse, exchange: Exchange) => void | Promise<void>;

/** A legacy (2025-11-25) server with a session; `call` answers tools/call, `get` the GET requests (405 by default). */
function legacyServer(call: (res: ServerResponse, message: Json) => void, get?: Handler): Handler {
  return (req, res, exchange) => {
    const message = exchange.message;
    if (req.method === 'GET') {
      if (get) return get(req, res, exchange);
      res.writeHead(405).end();
      return;
    }
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    if (!message || message.id === undefined) return void res.writeHead(202).end();
    if (message.method === 'initialize') return json(res, LEGACY_INIT(message.id), { 'mcp-session-id': SESSION });
    if (message.method === 'tools/list') return json(res, TOOLS(message.id));
    if (message.method === 'tools/call') return call(res, message);
    json(res, { jsonrpc: '2.0', id: message.id, result: {} });
  };
}

function modernServer(call: (res: ServerResponse, message: Json) => void): Handler {
  return (req, res, { message }) => {
    if (req.method !== 'POST' || !message) return void res.writeHead(405).end();
    if (message.method === 'server/discover') return json(res, DISCOVER(message.id));
    if (message.method === 'tools/list')
      return json(res, {
        jsonrpc: '2.0',
        id: message.id,
        result: { resultType: 'complete', tools: [{ name: 'slow', inputSchema: { type: 'object' } }], ttlMs: 0, cacheScope: 'public' },
      });
    if (message.method === 'tools/call') return call(res, message);
    res.writeHead(202).end();
  };
}

let server: Awaited<ReturnType<typeof startScriptedHttp>> | undefined;
let client: ToolClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

async function connect(handler: Handler, era: 'legacy' | 'modern', options: ConstructorParameters<typeof ToolClient>[1] = {}) {
  server = await startScriptedHttp(handler);
  const warnings: string[] = [];
  client = await ToolClient.connect({ url: server.url }, { era, timeoutMs: 10_000, onWarning: (w) => warnings.push(w), ...options });
  return { warnings, exchanges: server.exchanges };
}

describe('SSE events as the SSE standard and the transports define them', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`a priming event (id, empty data) is no message and no warning (${era})`, async () => {
      const respond = (res: ServerResponse, message: Json) => {
        sse(res);
        event(res, { id: 'prime-1', retry: 1000, data: '' });
        event(res, { id: 'prime-2' }); // an id-only event: nothing to dispatch
        event(res, { id: 'msg-1', event: 'message', data: DONE(message.id) });
        res.end();
      };
      const { warnings } = await connect(era === 'legacy' ? legacyServer(respond) : modernServer(respond), era);
      const result = await client!.callTool('slow', {});
      expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
      expect(warnings).toEqual([]);
    });
  }
});

describe('resuming a legacy response stream (2025-11-25 "Resumability and Redelivery")', () => {
  it('after the server closes it, waits the retry time, then GETs with Last-Event-ID and the session', async () => {
    let closedAt = 0;
    let callId: unknown;
    const { exchanges } = await connect(
      legacyServer(
        (res, message) => {
          callId = message.id;
          sse(res);
          event(res, { id: 'e1', retry: 300, data: '' });
          setTimeout(() => {
            closedAt = performance.now();
            res.end();
          }, 20);
        },
        (req, res) => {
          if (req.headers['last-event-id'] === undefined) return void res.writeHead(405).end();
          sse(res);
          event(res, { id: 'e2', data: '' });
          event(res, { id: 'e3', data: DONE(callId, 'resumed') });
          res.end();
        },
      ),
      'legacy',
    );
    const result = await client!.callTool('slow', {});
    expect(result.content).toEqual([{ type: 'text', text: 'resumed' }]);
    const resume = exchanges.find((x) => x.method === 'GET' && x.headers['last-event-id'] !== undefined)!;
    expect(resume.headers).toMatchObject({ 'last-event-id': 'e1', 'mcp-session-id': SESSION, 'mcp-protocol-version': '2025-11-25' });
    expect(resume.headers.accept).toMatch(/text\/event-stream/);
    // The client MUST wait `retry` ms before reconnecting (a lower bound, with a little timer slack).
    expect(resume.at - closedAt).toBeGreaterThanOrEqual(280);
  });

  it('after the connection drops mid-stream, resumes from the last event it received', async () => {
    let callId: unknown;
    const { exchanges } = await connect(
      legacyServer(
        (res, message) => {
          sse(res);
          event(res, { id: 'a1', retry: 50, data: '' });
          event(res, { id: 'a2', data: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'halfway' } } });
          setTimeout(() => res.socket?.destroy(), 20);
          callId = message.id;
        },
        (req, res) => {
          if (req.headers['last-event-id'] !== 'a2') return void res.writeHead(405).end();
          sse(res);
          event(res, { id: 'a3', data: DONE(callId) });
          res.end();
        },
      ),
      'legacy',
    );
    expect((await client!.callTool('slow', {})).content).toEqual([{ type: 'text', text: 'done' }]);
    expect(exchanges.filter((x) => x.method === 'GET' && x.headers['last-event-id'])).toHaveLength(1);
  });

  it('fails the call, saying the stream closed unanswered, when the server will not resume it (405)', async () => {
    await connect(
      legacyServer((res) => {
        sse(res);
        event(res, { id: 'e1', retry: 10, data: '' });
        res.end();
      }),
      'legacy',
    );
    const err = await client!.callTool('slow', {}).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(/closed the response stream of tools\/call without answering/);
  });

  it('gives up after a few reconnections that bring nothing', async () => {
    const { exchanges } = await connect(
      legacyServer(
        (res) => {
          sse(res);
          event(res, { id: 'e1', retry: 5, data: '' });
          res.end();
        },
        (req, res) => {
          if (req.headers['last-event-id'] === undefined) return void res.writeHead(405).end();
          sse(res);
          res.end(); // opens, says nothing, closes
        },
      ),
      'legacy',
    );
    const err = await client!.callTool('slow', {}).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    const resumes = exchanges.filter((x) => x.method === 'GET' && x.headers['last-event-id']).length;
    expect(resumes).toBeGreaterThanOrEqual(1);
    expect(resumes).toBeLessThanOrEqual(5);
  });

  it('does not resume a modern stream (2026-07-28: streams are not resumable)', async () => {
    const { exchanges } = await connect(
      modernServer((res) => {
        sse(res);
        event(res, { id: 'm1', retry: 10, data: '' });
        res.end();
      }),
      'modern',
    );
    const err = await client!.callTool('slow', {}).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(exchanges.some((x) => x.method === 'GET')).toBe(false);
  });
});

describe('the legacy session\'s GET stream (2025-11-25 "Listening for Messages from the Server")', () => {
  it('receives a server request there, answers it by POST in the session, and gets log notifications', async () => {
    let stream: ServerResponse | undefined;
    let pendingCall: Json | undefined;
    let callRes: ServerResponse | undefined;
    const logs: LogMessage[] = [];
    const { exchanges } = await connect(
      (req, res, exchange) => {
        const message = exchange.message;
        if (req.method === 'POST' && message && 'result' in message && message.id === 'ask-1') {
          res.writeHead(202).end();
          // The user's answer came back: finish the call with it.
          json(callRes!, DONE(pendingCall!.id, `name=${message.result.content.name}`));
          return;
        }
        if (req.method === 'POST' && message?.method === 'tools/call') {
          pendingCall = message;
          callRes = res;
          event(stream!, { id: 'g2', data: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', data: 'asking' } } });
          event(stream!, {
            id: 'g3',
            data: {
              jsonrpc: '2.0',
              id: 'ask-1',
              method: 'elicitation/create',
              params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
            },
          });
          return;
        }
        return legacyServer(
          () => {},
          (_req, getRes) => {
            stream = getRes;
            sse(getRes, { 'mcp-session-id': SESSION });
            event(getRes, { id: 'g1', data: '' });
          },
        )(req, res, exchange);
      },
      'legacy',
      {
        onInputRequest: (request) => {
          expect(request.toolName).toBe('slow');
          return { action: 'accept', content: { name: 'Ada' } };
        },
        onLog: (log) => logs.push(log),
      },
    );
    const result = await client!.callTool('slow', {});
    expect(result.content).toEqual([{ type: 'text', text: 'name=Ada' }]);
    expect(logs).toEqual([{ level: 'warning', data: 'asking' }]);
    const answer = exchanges.find((x) => x.message?.id === 'ask-1' && 'result' in x.message)!;
    expect(answer.headers['mcp-session-id']).toBe(SESSION);
    const listen = exchanges.find((x) => x.method === 'GET')!;
    expect(listen.headers).toMatchObject({ 'mcp-session-id': SESSION, accept: 'text/event-stream' });
  });

  it('a server without one (405) is no problem', async () => {
    const { warnings, exchanges } = await connect(
      legacyServer((res, message) => json(res, DONE(message.id))),
      'legacy',
    );
    expect((await client!.callTool('slow', {})).content).toEqual([{ type: 'text', text: 'done' }]);
    expect(exchanges.filter((x) => x.method === 'GET')).toHaveLength(1);
    expect(warnings).toEqual([]);
  });
});
