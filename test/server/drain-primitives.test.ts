import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditRecord } from '../../src/audit/record.js';
import { definePrompt } from '../../src/server/primitives/prompts/index.js';
import { defineResource, defineResourceTemplate } from '../../src/server/primitives/resources/index.js';
import { ToolServer } from '../../src/server/server.js';
import { startHttp } from '../helpers/http.js';
import { memoryLogger } from '../helpers/wire.js';

/**
 * ToolServer.drain waits for prompts/get, resources/read and
 * completion/complete as it does for tool calls (over real HTTP): they
 * finish within the grace, are stopped and answered with an error after it,
 * and new ones are refused once the drain has started.
 */
let http: Awaited<ReturnType<typeof startHttp>> | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

let aborted: string[] = [];
/** Opened by the test when the handlers waiting on it may answer (no timing guesses on a loaded machine). */
let gate: { opened: Promise<void>; open: () => void };
function newGate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
/** Answers once the gate opens (`ms` 'gate') or after `ms`, or says so when its signal aborts first. */
const wait = (what: string, ms: string, signal: AbortSignal) =>
  new Promise<string>((resolve) => {
    const timer = ms === 'gate' ? undefined : setTimeout(() => resolve(`${what} after ${ms}`), Number(ms));
    if (ms === 'gate') void gate.opened.then(() => resolve(`${what} released`));
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      aborted.push(what);
      resolve('noticed the abort');
    });
  });

async function setup() {
  aborted = [];
  gate = newGate();
  const records: AuditRecord[] = [];
  let completions = 0;
  const server = new ToolServer({
    logger: memoryLogger().logger,
    audit: { record: (r) => void records.push(r) },
    resources: [defineResource({ uri: 'slow://fixed', name: 'fixed', read: (ctx) => wait('fixed', 'gate', ctx.signal) })],
    resourceTemplates: [
      defineResourceTemplate({ uriTemplate: 'slow://ms/{ms}', name: 'slow', read: (_uri, v, ctx) => wait('read', String(v.ms), ctx.signal) }),
    ],
    prompts: [
      definePrompt({
        name: 'slow',
        arguments: [{ name: 'ms', required: true }],
        complete: { ms: () => new Promise((resolve) => setTimeout(() => resolve([`${++completions}`]), 60_000).unref()) },
        get: async ({ ms }, ctx) => wait('prompt', ms, ctx.signal),
      }),
    ],
  });
  http = await startHttp(server);
  return { server, records, http };
}

const settle = () => new Promise((r) => setTimeout(r, 20));
/** Until `n` requests have reached their handlers (HTTP requests arrive late on a loaded machine). */
const inFlight = (server: ToolServer, n: number) => vi.waitFor(() => expect(server.callsInFlight).toBe(n), { timeout: 10_000, interval: 5 });

describe('drain waits for prompts, resources and completion', () => {
  it('lets a read and a prompt in flight finish within the grace, and resolves after they answered', async () => {
    const { server, http } = await setup();
    const read = http.modern('resources/read', { uri: 'slow://ms/gate' });
    const prompt = http.modern('prompts/get', { name: 'slow', arguments: { ms: 'gate' } });
    await inFlight(server, 2);
    let drained = false;
    const drain = server.drain(30_000).then(() => (drained = true));
    await settle();
    expect(drained).toBe(false);
    gate.open();
    expect((await (await read).json()).result.contents[0].text).toBe('read released');
    expect((await (await prompt).json()).result.messages[0].content.text).toBe('prompt released');
    await drain;
    expect([server.callsInFlight, aborted]).toEqual([0, []]);
  });

  it("stops what outlives the grace: the handler's signal aborts and the client gets an error saying why", async () => {
    const { server, http, records } = await setup();
    const read = http.modern('resources/read', { uri: 'slow://ms/60000' });
    const prompt = http.modern('prompts/get', { name: 'slow', arguments: { ms: '60000' } });
    const completion = http.modern('completion/complete', { ref: { type: 'ref/prompt', name: 'slow' }, argument: { name: 'ms', value: '' } });
    await inFlight(server, 3);
    await server.drain(30);
    expect(server.callsInFlight).toBe(0);
    expect(aborted.sort()).toEqual(['prompt', 'read']);
    for (const res of [read, prompt, completion]) {
      const { error } = await (await res).json();
      expect(error.code).toBe(-32603);
      expect(error.message).toMatch(/stopped because the server is shutting down/);
    }
    expect(records.map((r) => [r.method, r.status]).sort()).toEqual([
      ['completion/complete', 'cancelled'],
      ['prompts/get', 'cancelled'],
      ['resources/read', 'cancelled'],
    ]);
  });

  it('refuses reads, gets and completions that arrive once it has started', async () => {
    const { server, http, records } = await setup();
    const running = http.modern('resources/read', { uri: 'slow://fixed' });
    await inFlight(server, 1);
    const drain = server.drain(5_000);
    for (const [method, params] of [
      ['resources/read', { uri: 'slow://ms/1' }],
      ['prompts/get', { name: 'slow', arguments: { ms: '1' } }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'slow' }, argument: { name: 'ms', value: '' } }],
    ] as const) {
      const { error } = await (await http.modern(method, params)).json();
      expect(error.message).toMatch(/^The server is shutting down; retry in a few seconds/);
    }
    gate.open();
    expect((await (await running).json()).result.contents[0].text).toBe('fixed released');
    await drain;
    expect(records.map((r) => r.status)).toEqual(['refused', 'refused', 'refused', 'ok']);
  });
});
