import { afterEach, describe, expect, it } from 'vitest';
import { requestLogging, responseCache, timing, SERVER_TIMING } from '../../src/middleware.js';
import { ToolServer } from '../../src/server/server.js';
import { startHttp } from '../helpers/http.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';

type Msg = Record<string, any>;

let runs = 0;
function makeServer() {
  runs = 0;
  return new ToolServer({
    logger: memoryLogger().logger,
    audit: false,
    tasks: false,
    tools: [
      {
        name: 'lookup',
        description: 'reads',
        inputSchema: { type: 'object', properties: { q: { type: 'string' }, token: { type: 'string', 'x-sensitive': true } } },
        annotations: { readOnlyHint: true },
        handler: ({ q }: { q?: string }, ctx) => {
          runs++;
          if (q === 'fail') return { content: [{ type: 'text', text: 'no' }], isError: true };
          return `${q} for ${ctx.principal} #${runs}`;
        },
      },
      {
        name: 'write',
        description: 'writes',
        inputSchema: { type: 'object' },
        handler: () => {
          runs++;
          return `written #${runs}`;
        },
      },
    ],
  });
}

/** A connection for one caller, as a transport that verified it would open. */
function as(server: ToolServer, caller: string | undefined, transport = 'stdio') {
  const connection = server.connect({ transport, ...(caller ? { caller } : {}) });
  let id = 1;
  return async (method: string, params: Msg = {}, meta: Msg = {}): Promise<Msg> => {
    const reply = await connection.receive(JSON.stringify({ jsonrpc: '2.0', id: id++, method, params: { ...params, _meta: modernMeta(meta) } }));
    return JSON.parse(reply!.json);
  };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('responseCache', () => {
  it('serves a read-only tool again to the same caller and arguments (whatever their order), never to another caller', async () => {
    const server = makeServer();
    server.use(responseCache({ ttlMs: 60_000 }));
    const alice = as(server, 'alice');
    const bob = as(server, 'bob');
    const first = (await alice('tools/call', { name: 'lookup', arguments: { q: 'x', token: 't' } })).result.content[0].text;
    expect((await alice('tools/call', { name: 'lookup', arguments: { token: 't', q: 'x' } })).result.content[0].text).toBe(first);
    expect(runs).toBe(1);
    expect((await bob('tools/call', { name: 'lookup', arguments: { q: 'x', token: 't' } })).result.content[0].text).toBe('x for bob #2');
    expect((await alice('tools/call', { name: 'lookup', arguments: { q: 'y' } })).result.content[0].text).toBe('y for alice #3');
  });

  it('never caches a tool that is not read-only, nor an isError result', async () => {
    const server = makeServer();
    server.use(responseCache());
    const alice = as(server, 'alice');
    await alice('tools/call', { name: 'write', arguments: {} });
    expect((await alice('tools/call', { name: 'write', arguments: {} })).result.content[0].text).toBe('written #2');
    await alice('tools/call', { name: 'lookup', arguments: { q: 'fail' } });
    await alice('tools/call', { name: 'lookup', arguments: { q: 'fail' } });
    expect(runs).toBe(4);
  });

  it('caches lists per caller, forgets after the TTL, and keeps at most maxEntries (least recently used out)', async () => {
    const server = makeServer();
    let now = 1_000_000;
    const realNow = Date.now;
    Date.now = () => now;
    try {
      const cache = responseCache({ ttlMs: 1_000, maxEntries: 2 });
      server.use(cache);
      const alice = as(server, 'alice');
      await alice('tools/call', { name: 'lookup', arguments: { q: 'a' } });
      await alice('tools/call', { name: 'lookup', arguments: { q: 'b' } });
      await alice('tools/call', { name: 'lookup', arguments: { q: 'a' } }); // a is now the most recent
      await alice('tools/call', { name: 'lookup', arguments: { q: 'c' } }); // evicts b
      expect(cache.size).toBe(2);
      expect(runs).toBe(3);
      await alice('tools/call', { name: 'lookup', arguments: { q: 'a' } });
      expect(runs).toBe(3);
      await alice('tools/call', { name: 'lookup', arguments: { q: 'b' } });
      expect(runs).toBe(4);
      now += 1_001;
      await alice('tools/call', { name: 'lookup', arguments: { q: 'c' } });
      expect(runs).toBe(5);
      const list = await alice('tools/list');
      expect((await alice('tools/list')).result).toEqual(list.result);
    } finally {
      Date.now = realNow;
    }
  });

  it('over HTTP: an authenticated caller gets its own cached answers; anonymous callers are not cached', async () => {
    const server = makeServer();
    server.use(responseCache());
    const http = await startHttp(server, { authenticate: (req) => (req.headers['x-user'] as string | undefined) || 'anonymous-but-known' });
    closers.push(() => http.close());
    const call = async (user: string) =>
      ((await (await http.modern('tools/call', { name: 'lookup', arguments: { q: 'x' } }, { 'x-user': user })).json()) as Msg).result.content[0].text;
    expect(await call('alice')).toBe('x for alice #1');
    expect(await call('alice')).toBe('x for alice #1');
    expect(await call('bob')).toBe('x for bob #2');
    const anonymous = as(server, undefined, 'websocket');
    await anonymous('tools/call', { name: 'lookup', arguments: { q: 'x' } });
    await anonymous('tools/call', { name: 'lookup', arguments: { q: 'x' } });
    expect(runs).toBe(4);
  });
});

describe('requestLogging', () => {
  it('writes one line per request, without arguments unless asked, redacting secrets when asked', async () => {
    const server = makeServer();
    const lines: Msg[] = [];
    server.use(requestLogging({ logger: { info: (fields) => lines.push(fields) } }));
    const alice = as(server, 'alice');
    await alice('tools/call', { name: 'lookup', arguments: { q: 'x', token: 'secret-token' } });
    await alice('tools/list');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ method: 'tools/call', era: 'modern', principal: 'alice', target: 'lookup', outcome: 'ok' });
    expect(typeof lines[0].durationMs).toBe('number');
    expect(lines[0].arguments).toBeUndefined();
    expect(lines[1]).toMatchObject({ method: 'tools/list', outcome: 'ok' });

    const verbose: Msg[] = [];
    const other = makeServer();
    other.use(requestLogging({ arguments: true, logger: { info: (fields) => verbose.push(fields) } }));
    await as(other, 'bob')('tools/call', { name: 'lookup', arguments: { q: 'x', token: 'secret-token' } });
    expect(verbose[0].arguments.q).toBe('x');
    expect(JSON.stringify(verbose)).not.toContain('secret-token');
  });

  it('logs errors with their code and isError results as tool_error', async () => {
    const server = makeServer();
    const lines: Msg[] = [];
    server.use(requestLogging({ logger: { info: (fields) => lines.push(fields) } }));
    const alice = as(server, 'alice');
    await alice('tools/call', { name: 'lookup', arguments: { q: 'fail' } });
    await alice('prompts/list', { cursor: 'not-a-cursor' });
    // Refused by the built-in checks, before any user middleware: not this log's (the audit trail's).
    await alice('resources/read', { uri: 'nothing://here' });
    expect(lines.map((l) => [l.method, l.outcome, l.errorCode])).toEqual([
      ['tools/call', 'tool_error', undefined],
      ['prompts/list', 'error', -32602],
    ]);
  });
});

describe('timing', () => {
  it('adds Server-Timing-like _meta only when asked, to tool results and (copied) list pages', async () => {
    const server = makeServer();
    server.use(timing());
    const alice = as(server, 'alice');
    const plain = await alice('tools/call', { name: 'lookup', arguments: { q: 'x' } });
    expect(plain.result._meta[SERVER_TIMING]).toBeUndefined();
    const timed = await alice('tools/call', { name: 'lookup', arguments: { q: 'x' } }, { [SERVER_TIMING]: true });
    expect(timed.result._meta[SERVER_TIMING]).toMatch(/^total;dur=\d+(\.\d+)?$/);
    expect(timed.result._meta['io.modelcontextprotocol/serverInfo']).toBeDefined();
    const list = await alice('tools/list', {}, { [SERVER_TIMING]: true });
    expect(list.result._meta[SERVER_TIMING]).toMatch(/^total;dur=/);
    expect((await alice('tools/list')).result._meta[SERVER_TIMING]).toBeUndefined();
  });
});
