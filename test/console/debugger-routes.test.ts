import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type RunningConsole } from '../../src/console/server/listen.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { MemoryClientTransport } from '../../src/testing.js';

/**
 * Issue 35, the protocol debugger's API against a modern server in process: the history holds
 * the handshake and calls; a modern log level rides in _meta; roots set on the page answer a
 * tool's roots/list; a sampling question answered from the page, or rejected, reaches the tool;
 * bad input is refused with 400 and a stale question with 410.
 */
let running: RunningConsole;
let token: string;
let origin: string;

beforeAll(async () => {
  const server = new ToolServer({ name: 'dbg', version: '1.0.0', audit: false, logger: createLogger('silent') });
  server.addTool(
    {
      name: 'roots',
      description: 'Lists the client roots',
      inputSchema: { type: 'object' },
      handler: async (_args, ctx) => JSON.stringify((await ctx.listRoots()).roots),
    },
    {
      name: 'ask_model',
      description: 'Samples the client model',
      inputSchema: { type: 'object' },
      handler: async (_args, ctx) => {
        ctx.log('info', 'about to sample');
        const reply = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'a colour?' } }], maxTokens: 10 });
        return `the model said ${JSON.stringify(reply.content)} (${reply.model})`;
      },
    },
  );
  running = await startConsole({ version: '0.0.0-test', target: { kind: 'transport', label: 'dbg', transport: () => new MemoryClientTransport(server) } });
  token = /token=([A-Za-z0-9_-]+)/.exec(running.url)?.[1] ?? '';
  origin = new URL(running.url).origin;
  await running.app.session.connect(running.app.session.defaultTarget!);
});
afterAll(() => running.close());

const headers = () => ({ 'X-Console-Token': token, Origin: origin, 'Content-Type': 'application/json' });
const post = (path: string, body: unknown) => fetch(`${origin}/api/${path}`, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
const get = async (path: string) => (await fetch(`${origin}/api/${path}`, { headers: headers() })).json() as Promise<Record<string, unknown>>;

/** Runs a call through `POST call`, answering its first question with `answer`; resolves with the call's last event. */
async function call(tool: string, answer?: (question: { id: string }) => Promise<unknown>): Promise<Record<string, unknown>> {
  const res = await post('call', { tool });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the call stream ended without a result');
    buffered += value;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines.filter(Boolean)) {
      const event = JSON.parse(line) as Record<string, unknown>;
      if (event.type === 'input' && answer) await answer(event as unknown as { id: string });
      if (event.type === 'result' || event.type === 'error') return event;
    }
  }
}

describe('the protocol debugger API', () => {
  it('keeps the handshake and each call in the history', async () => {
    await call('roots');
    const { entries, capacity } = (await get('history')) as { entries: Array<{ method?: string; kind: string; direction: string }>; capacity: number };
    expect(capacity).toBe(1000);
    expect(entries[0]).toMatchObject({ direction: 'sent', kind: 'request', method: 'server/discover' });
    // A modern server asks for the roots inside a result (mrtr.mdx), and the call is sent again with the answer.
    expect(entries.filter((e) => e.method === 'tools/call').map((e) => `${e.direction} ${e.kind}`)).toEqual([
      'sent request',
      'received result',
      'sent request',
      'received result',
    ]);
    expect((await post('history/clear', {})).status).toBe(200);
    expect(((await get('history')) as { entries: unknown[] }).entries).toEqual([]);
  });

  it("answers a modern tool's roots/list with the roots set from the page, and refuses roots that are not file URIs", async () => {
    expect((await post('roots', { roots: [{ uri: 'https://example.com/' }] })).status).toBe(400);
    const set = await post('roots', { roots: [{ uri: '/srv/project', name: 'project' }] });
    expect(await set.json()).toEqual({ roots: [{ uri: 'file:///srv/project', name: 'project' }], notified: false });
    const done = await call('roots');
    expect(JSON.stringify(done.result)).toContain('file:///srv/project');
  });

  it('puts a modern log level in _meta, and hears the tool log message; refuses an unknown level', async () => {
    expect((await post('logging/level', { level: 'loud' })).status).toBe(400);
    expect(await (await post('logging/level', { level: 'info' })).json()).toEqual({ level: 'info', sent: '_meta' });
    await call('ask_model', (q) => post('input', { id: q.id, result: { role: 'assistant', content: { type: 'text', text: 'teal' }, model: 'person' } }));
    const logs = (await get('logs')) as { messages: Array<{ data: unknown }>; level: string; era: string };
    expect(logs).toMatchObject({ level: 'info', era: 'modern' });
    expect(logs.messages.map((m) => m.data)).toContain('about to sample');
  });

  it('sends the answer to a sampling question to the tool, and ends the call when it is rejected', async () => {
    const answered = await call('ask_model', (q) =>
      post('input', { id: q.id, result: { role: 'assistant', content: { type: 'text', text: 'teal' }, model: 'person', stopReason: 'endTurn' } }),
    );
    expect(JSON.stringify(answered.result)).toContain('the model said {\\"type\\":\\"text\\",\\"text\\":\\"teal\\"} (person)');
    const rejected = await call('ask_model', (q) => post('input/reject', { id: q.id }));
    expect(rejected.type).toBe('error');
    expect(String((rejected.error as { message: string }).message)).toMatch(/rejected/);
    expect((await post('input/reject', { id: 'no-such-question' })).status).toBe(410);
  });
});
