import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { CancelledError, ToolClient } from '../../src/client.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';

// A legacy HTTP session the server ended (404) is re-established with one
// `initialize`, however many requests find it gone at once. Everything runs
// against toolwright's own HTTP server on 127.0.0.1, observed (and held back
// where a test needs an exact order) by a wrapper around its request handler.

const SESSION = 'mcp-session-id';
let handle: HttpServerHandle | undefined;
let client: ToolClient | undefined;
afterEach(async () => {
  await client?.close();
  await handle?.close();
  client = handle = undefined;
});

interface Observed {
  url: string;
  /** POSTs without a session id: the client's `initialize`s, or requests it sent without the session they belong to. */
  sessionless: number;
  /** POSTs with a session id. */
  inSession: number;
  /** The session id last seen on a request. */
  sessionId?: string;
  /** Runs before the server handles a request; the request waits until the returned promise settles. */
  before?: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;
}

async function serve(options: { pageSize?: number } = {}): Promise<Observed> {
  const server = new ToolServer({ name: 'renewal', logger: createLogger('silent'), pageSize: options.pageSize });
  for (const name of ['echo', 'other', 'third']) {
    server.addTool({ name, description: `The ${name} tool`, inputSchema: { type: 'object' }, handler: () => name });
  }
  handle = await serveHttp(server, { port: 0 });
  const observed: Observed = { url: handle.url, sessionless: 0, inSession: 0 };
  const http = handle.server;
  const [inner] = http.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  http.removeAllListeners('request');
  http.on('request', async (req: IncomingMessage, res: ServerResponse) => {
    const sessionId = req.headers[SESSION];
    if (req.method === 'POST') sessionId === undefined ? observed.sessionless++ : observed.inSession++;
    if (typeof sessionId === 'string') observed.sessionId = sessionId;
    // The body stays unread (and buffered) while the request is held.
    await observed.before?.(req, res);
    inner.call(http, req, res);
  });
  return observed;
}

/** Connects in the legacy era, loads the tool list and ends the session behind the client's back. */
async function connectAndExpire(observed: Observed): Promise<ToolClient> {
  client = await ToolClient.connect({ url: observed.url }, { era: 'legacy', onWarning: () => {} });
  await client.listTools();
  const expired = observed.sessionId!;
  const res = await fetch(observed.url, { method: 'DELETE', headers: { [SESSION]: expired } });
  expect(res.status).toBe(200);
  observed.sessionless = 0;
  return client;
}

/** A gate the test opens; `entered` resolves when the first request reaches it. */
function gate() {
  let open!: () => void;
  let enter!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const entered = new Promise<void>((r) => (enter = r));
  return { opened, entered, open, enter };
}

/** Holds the client's `initialize` (its only POST without a session id here) at a gate. */
function holdInitialize(observed: Observed) {
  const g = gate();
  observed.before = (req) => {
    if (req.method !== 'POST' || req.headers[SESSION] !== undefined) return;
    g.enter();
    return g.opened;
  };
  return g;
}

/** How `promise` stands 50 ms from now: ample time for anything not waiting on the server. */
async function state(promise: Promise<unknown>): Promise<'pending' | 'fulfilled' | 'rejected'> {
  const settled = promise.then(
    () => 'fulfilled' as const,
    () => 'rejected' as const,
  );
  return Promise.race([settled, new Promise<'pending'>((r) => setTimeout(() => r('pending'), 50))]);
}

describe('legacy session renewal over HTTP', () => {
  it('re-establishes an expired session once for many concurrent calls', async () => {
    const observed = await serve();
    const tools = await connectAndExpire(observed);
    const calls = 5;
    const expired = observed.sessionId!;
    // Hold the new initialize until the server has turned every call away with 404,
    // so all of them find the session gone before any handshake could finish.
    const g = holdInitialize(observed);
    let turnedAway = 0;
    const hold = observed.before!;
    observed.before = (req, res) => {
      if (req.headers[SESSION] === expired) res.once('finish', () => ++turnedAway === calls && g.open());
      return hold(req, res);
    };
    const results = await Promise.all(Array.from({ length: calls }, (_, i) => tools.callTool('echo', { i })));
    expect(turnedAway).toBe(calls);
    expect(results.map((r) => r.content)).toEqual(Array.from({ length: calls }, () => [{ type: 'text', text: 'echo' }]));
    expect(observed.sessionless).toBe(1);
    expect(observed.sessionId).not.toBe(expired);
  });

  it('keeps the new session when a request sent in the old one is turned away late', async () => {
    const observed = await serve();
    const tools = await connectAndExpire(observed);
    const expired = observed.sessionId!;
    // Hold the first call's request (still in the expired session) at the server.
    const g = gate();
    let held = false;
    observed.before = (req) => {
      if (held || req.method !== 'POST' || req.headers[SESSION] !== expired) return;
      held = true;
      g.enter();
      return g.opened;
    };
    const late = tools.callTool('echo');
    await g.entered;
    // Meanwhile another call finds the session gone and makes a new one.
    expect((await tools.callTool('other')).content).toEqual([{ type: 'text', text: 'other' }]);
    const renewed = observed.sessionId;
    expect(renewed).not.toBe(expired);
    g.open();
    // The late 404 neither erases the new session nor starts another handshake.
    expect((await late).content).toEqual([{ type: 'text', text: 'echo' }]);
    expect(observed.sessionless).toBe(1);
    expect(observed.sessionId).toBe(renewed);
  });

  it('lets the caller who started the renewal give up without failing the others', async () => {
    const observed = await serve();
    const tools = await connectAndExpire(observed);
    const g = holdInitialize(observed);
    const abort = new AbortController();
    const first = tools.callTool('echo', {}, { signal: abort.signal });
    await g.entered; // its 404 started the handshake, which the server holds
    const others = [tools.callTool('other'), tools.callTool('third')];
    abort.abort();
    // Its wait ends at once; the handshake it started goes on for the others.
    expect(await state(first)).toBe('rejected');
    await expect(first).rejects.toBeInstanceOf(CancelledError);
    expect(await state(Promise.all(others))).toBe('pending');
    g.open();
    expect((await Promise.all(others)).map((r) => r.content)).toEqual([[{ type: 'text', text: 'other' }], [{ type: 'text', text: 'third' }]]);
    // The others waited for the new session instead of going out without one.
    expect(observed.sessionless).toBe(1);
  });

  it('honours each listing caller’s own signal across the renewal', async () => {
    const observed = await serve({ pageSize: 1 });
    const tools = await connectAndExpire(observed);
    const g = holdInitialize(observed);
    const abort = new AbortController();
    const aborted = tools.listTools({ refresh: true, signal: abort.signal });
    const other = tools.listTools({ refresh: true });
    await g.entered;
    abort.abort();
    expect(await state(aborted)).toBe('rejected');
    await expect(aborted).rejects.toBeInstanceOf(CancelledError);
    expect(await state(other)).toBe('pending');
    g.open();
    expect((await other).map((t) => t.name)).toEqual(['echo', 'other', 'third']);
    expect(observed.sessionless).toBe(1);
  });

  it('stops a listing nobody waits for any more, and starts afresh for the next caller', async () => {
    const observed = await serve({ pageSize: 1 });
    client = await ToolClient.connect({ url: observed.url }, { era: 'legacy', onWarning: () => {} });
    const g = gate();
    observed.before = (req) => {
      if (req.method !== 'POST') return;
      g.enter();
      return g.opened;
    };
    const abort = new AbortController();
    const listing = client.listTools({ signal: abort.signal });
    await g.entered; // the first page is held at the server
    const before = observed.inSession;
    abort.abort();
    await expect(listing).rejects.toBeInstanceOf(CancelledError);
    observed.before = undefined;
    g.open();
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo', 'other', 'third']);
    // notifications/cancelled for the held page, then three pages of the new listing: the old one asked for no more.
    expect(observed.inSession - before).toBe(4);
  });
});
