import { afterEach, describe, expect, it } from 'vitest';
import { CancelledError, McpRpcError, TimeoutError, ToolClient, type Progress } from '../../src/client.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool, type Tool } from '../../src/server/tool.js';
import { createInMemoryPair } from '../../src/testing.js';
import { serveHttp } from '../../src/transports/http-server.js';

// Issue 22: listeners added after connect(), prompt and resource list changes, resource updates,
// a generic request() and a per-call onInputRequest, against a real toolwright server.

let cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const done of cleanup.reverse()) await done();
  cleanup = [];
});

const tool = (name: string, handler: Tool['handler'] = () => name) =>
  defineTool({ name, description: `The ${name} tool.`, inputSchema: { type: 'object', properties: {} }, handler }) as Tool;

function server(): ToolServer {
  const s = new ToolServer({
    name: 'events',
    logger: createLogger('silent'),
    audit: false,
    tools: [
      tool('first'),
      tool('steps', async (_args, ctx) => {
        for (let i = 1; i <= 3; i++) ctx.progress(i, 3, `step ${i}`);
        return 'stepped';
      }),
      tool('hang', (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped')))),
      tool('ask', async (_args, ctx) => {
        const answer = await ctx.elicit('Who?', { type: 'object', properties: { who: { type: 'string' } } });
        return `${answer.action}:${String(answer.content?.who)}`;
      }),
    ],
    resources: [
      { uri: 'test://a', name: 'a', read: () => 'A' },
      { uri: 'test://b', name: 'b', read: () => 'B' },
    ],
    prompts: [{ name: 'hello', get: () => 'Hello' }],
  });
  cleanup.push(() => s.close());
  return s;
}

async function pair(era: 'modern' | 'legacy', s = server(), options: ConstructorParameters<typeof ToolClient>[1] = {}) {
  const p = await createInMemoryPair(s, { era, ...options });
  cleanup.push(() => p.close());
  return p.client;
}

/** Makes a change until the listener heard one: a modern stream only hears what happens after the server acknowledged it. */
async function changeUntilHeard(change: (n: number) => void, heard: () => number): Promise<void> {
  let n = 0;
  await expect.poll(() => (change(n++), heard()), { timeout: 10_000, interval: 100 }).toBeGreaterThan(0);
}

describe.each(['modern', 'legacy'] as const)('ToolClient listeners (%s era)', (era) => {
  it('hears prompt, resource and tool list changes through listeners added after connect()', async () => {
    const s = server();
    const client = await pair(era, s);
    const heard = { prompts: 0, resources: 0, tools: 0 };
    client.on('promptsChanged', () => heard.prompts++);
    client.on('resourcesChanged', () => heard.resources++);
    client.on('toolsChanged', () => heard.tools++);
    await changeUntilHeard(
      (n) => s.prompts.add({ name: `p${n}`, get: () => 'x' }),
      () => heard.prompts,
    );
    await changeUntilHeard(
      (n) => s.resources.add({ uri: `test://new/${n}`, name: `r${n}`, read: () => 'x' }),
      () => heard.resources,
    );
    await changeUntilHeard(
      (n) => s.addTool(tool(`t${n}`)),
      () => heard.tools,
    );
    expect((await client.listPrompts()).map((p) => p.name)).toContain('p0');
    // The cached tool listing was dropped before the listener was told.
    expect((await client.listTools()).map((t) => t.name)).toContain('t0');
  });

  it('keeps the constructor callbacks, and a removed listener hears nothing more', async () => {
    const s = server();
    let fromOption = 0;
    const client = await pair(era, s, { onPromptsListChanged: () => fromOption++ });
    let removedHeard = 0;
    const remove = client.on('promptsChanged', () => removedHeard++);
    await changeUntilHeard(
      (n) => s.prompts.add({ name: `p${n}`, get: () => 'x' }),
      () => Math.min(fromOption, removedHeard),
    );
    remove();
    remove(); // twice is harmless
    const before = removedHeard;
    const target = fromOption + 1;
    s.prompts.add({ name: 'later', get: () => 'x' });
    await expect.poll(() => fromOption, { timeout: 10_000 }).toBeGreaterThanOrEqual(target);
    expect(removedHeard).toBe(before);
  });

  it('hears updates of the resources it subscribed to, and stops when it unsubscribes', async () => {
    const s = server();
    const client = await pair(era, s);
    const updates: string[] = [];
    client.on('resourceUpdated', ({ uri }) => updates.push(uri));
    await client.subscribeResource('test://a');
    await client.subscribeResource('test://b');
    s.resources.updated('test://a');
    await expect.poll(() => updates, { timeout: 10_000 }).toEqual(['test://a']);
    await client.unsubscribeResource('test://a');
    // Updated in this order, a's would arrive before b's: b's arrival shows a's did not come.
    s.resources.updated('test://a');
    s.resources.updated('test://b');
    await expect.poll(() => updates, { timeout: 10_000 }).toEqual(['test://a', 'test://b']);
  });

  it('reports a listener that throws as a warning, and still tells the others', async () => {
    const s = server();
    const warnings: string[] = [];
    const client = await pair(era, s, { onWarning: (w) => warnings.push(w) });
    let other = 0;
    client.on('resourcesChanged', () => {
      throw new Error('listener broke');
    });
    client.on('resourcesChanged', () => other++);
    await changeUntilHeard(
      (n) => s.resources.add({ uri: `test://x/${n}`, name: `x${n}`, read: () => 'x' }),
      () => other,
    );
    expect(warnings).toContain('a resourcesChanged listener threw: listener broke');
  });

  it('refuses an unknown event and a listener that is not a function', async () => {
    const client = await pair(era);
    expect(() => client.on('nonsense' as never, () => {})).toThrow(/unknown client event "nonsense"/);
    expect(() => client.on('log', 'no' as never)).toThrow(TypeError);
  });

  it('sends any method with request(): the raw result, progress, and the usual errors, timeout and cancellation', async () => {
    const client = await pair(era);
    const prompts = await client.request('prompts/list');
    expect((prompts.prompts as Array<{ name: string }>).map((p) => p.name)).toEqual(['hello']);
    const progress: Progress[] = [];
    const called = await client.request('tools/call', { name: 'steps', arguments: {} }, { onProgress: (p) => progress.push(p) });
    expect(called.content).toEqual([{ type: 'text', text: 'stepped' }]);
    expect(progress.map((p) => p.message)).toEqual(['step 1', 'step 2', 'step 3']);
    const unknown = await client.request('no/such/method').catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpRpcError);
    expect((unknown as McpRpcError).code).toBe(-32601);
    await expect(client.request('tools/call', { name: 'hang', arguments: {} }, { timeoutMs: 200 })).rejects.toBeInstanceOf(TimeoutError);
    const controller = new AbortController();
    const pending = client.request('tools/call', { name: 'hang', arguments: {} }, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    await expect(client.request('', {})).rejects.toThrow(TypeError);
    await expect(client.request('tools/list', [] as never)).rejects.toThrow(TypeError);
  });

  it("answers a call's questions with that call's own onInputRequest, over the client's", async () => {
    const client = await pair(era, server(), { onInputRequest: async () => ({ action: 'accept', content: { who: 'client-wide' } }) });
    expect((await client.callTool('ask')).content).toEqual([{ type: 'text', text: 'accept:client-wide' }]);
    const own = await client.callTool('ask', {}, { onInputRequest: async () => ({ action: 'accept', content: { who: 'this call' } }) });
    expect(own.content).toEqual([{ type: 'text', text: 'accept:this call' }]);
  });

  // Over HTTP a legacy server's question comes on the stream of the call it belongs to; on stdio
  // (and in memory) it names no call, and is told apart only while one call is in flight.
  it('gives concurrent calls over HTTP their own handlers, with capabilities declared by inputCapabilities alone', async () => {
    const http = await serveHttp(server(), { port: 0 });
    cleanup.push(() => http.close());
    const client = await ToolClient.connect({ url: http.url }, { era, inputCapabilities: ['elicitation'] });
    cleanup.push(() => client.close());
    const answering = (who: string) => async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return { action: 'accept' as const, content: { who } };
    };
    const results = await Promise.all(['one', 'two', 'three'].map((who) => client.callTool('ask', {}, { onInputRequest: answering(who) })));
    expect(results.map((r) => r.content)).toEqual(['one', 'two', 'three'].map((who) => [{ type: 'text', text: `accept:${who}` }]));
  });
});

describe('listeners over HTTP (modern: a subscriptions/listen stream that follows what is listened to)', () => {
  it('starts listening to prompts when the first prompt listener is added after connect()', async () => {
    const s = server();
    const http = await serveHttp(s, { port: 0 });
    cleanup.push(() => http.close());
    const client = await ToolClient.connect({ url: http.url }, { era: 'modern' });
    cleanup.push(() => client.close());
    let prompts = 0;
    client.on('promptsChanged', () => prompts++);
    await changeUntilHeard(
      (n) => s.prompts.add({ name: `p${n}`, get: () => 'x' }),
      () => prompts,
    );
    const updates: string[] = [];
    client.on('resourceUpdated', ({ uri }) => updates.push(uri));
    await client.subscribeResource('test://b');
    s.resources.updated('test://b');
    await expect.poll(() => updates, { timeout: 10_000 }).toEqual(['test://b']);
  });
});

describe('resource subscriptions and a renewed legacy session', () => {
  it('subscribes again in the new session when the server ended the old one', async () => {
    const s = server();
    const http = await serveHttp(s, { port: 0 });
    cleanup.push(() => http.close());
    let sessionId: string | undefined;
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      sessionId = res.headers.get('mcp-session-id') ?? sessionId;
      return res;
    };
    const client = await ToolClient.connect({ url: http.url, fetch: recording }, { era: 'legacy', onWarning: () => {} });
    cleanup.push(() => client.close());
    const updates: string[] = [];
    client.on('resourceUpdated', ({ uri }) => updates.push(uri));
    await client.subscribeResource('test://a');
    const old = sessionId!;
    expect((await fetch(http.url, { method: 'DELETE', headers: { 'mcp-session-id': old } })).status).toBe(200);
    await client.listTools({ refresh: true }); // finds the session gone (404) and opens a new one
    expect(sessionId).not.toBe(old);
    await changeUntilHeard(
      () => s.resources.updated('test://a'),
      () => updates.length,
    );
  });
});
