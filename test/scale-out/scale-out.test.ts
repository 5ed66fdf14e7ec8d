import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { NGINX } from '../helpers/nginx.js';
import { REDIS_SERVER, TestRedis } from '../helpers/redis.js';
import { startCluster } from '../helpers/scale-out.js';
import { startFileCluster } from '../helpers/scale-out-file.js';
import { tasksRpc as rpc, WITH_TASKS, WITH_TASKS_AND_ELICITATION } from '../helpers/tasks.js';
import { MODERN, modernMeta } from '../helpers/wire.js';

/**
 * Three `toolwright serve --http` instances behind a real nginx (round-robin, no affinity), sharing
 * Redis (`server.state.redis`: the event bus, legacy session records and the task store), as
 * examples/scale-out/ runs them (docs/deployment.md; test/helpers/scale-out.ts).
 */

let redis: TestRedis | undefined;
beforeAll(async () => {
  if (REDIS_SERVER && NGINX) redis = await TestRedis.create();
}, 30_000);
afterAll(() => redis?.destroy());

const cluster = (tasks: Record<string, unknown> = {}) => startCluster({ audit: false, state: { redis: redis!.url }, tasks });

/** A POST whose answer is an SSE stream kept open: the JSON-RPC messages it carried so far. */
function openStream(url: string, body: Record<string, unknown>, headers: Record<string, string>) {
  const messages: Array<Record<string, any>> = [];
  let open = false;
  const abort = new AbortController();
  onTestFinished(() => abort.abort());
  const opened = fetch(url, {
    method: body.method ? 'POST' : 'GET',
    signal: abort.signal,
    headers: { accept: 'application/json, text/event-stream', ...(body.method ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body.method ? { body: JSON.stringify(body) } : {}),
  }).then(async (res) => {
    expect(res.status).toBe(200);
    open = true;
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n');
        buffer = buffer.slice(end + 2);
        if (data) messages.push(JSON.parse(data));
      }
    }
  });
  opened.catch(() => undefined);
  return { messages, isOpen: () => open };
}

const listenBody = (id: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'subscriptions/listen',
  params: { notifications: { toolsListChanged: true }, _meta: modernMeta() },
});
const listenHeaders = { 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' };
const toolsChanged = (messages: Array<Record<string, any>>) => messages.some((m) => m.method === 'notifications/tools/list_changed');

describe.skipIf(!REDIS_SERVER || !NGINX)('three instances behind nginx, sharing Redis and one task store (real processes)', () => {
  // One cluster (default config) for the tests below that only need three live instances: each
  // opens its own streams, sessions and tasks, so what one leaves behind is not what the next
  // reads. A cluster costs ~3.5 s of CPU to start. The test that SIGKILLs an instance of it runs
  // last among them; the lease test has its own (a short lease, and it kills one too).
  let shared: Awaited<ReturnType<typeof startFileCluster>>;
  beforeAll(async () => {
    shared = await startFileCluster({ audit: false, state: { redis: redis!.url }, tasks: {} });
    return shared.destroy;
  }, 60_000);

  it("a tool list change on one instance reaches subscriptions/listen streams held by the others, and a legacy session's GET stream on another", async () => {
    const { instances, nginx } = shared;
    const [a, b, c] = instances;
    // Streams on the two instances that will not change, and one through the balancer.
    const onB = openStream(b.url, listenBody('on-b'), listenHeaders);
    const onC = openStream(c.url, listenBody('on-c'), listenHeaders);
    const balanced = openStream(nginx.url, listenBody('via-nginx'), listenHeaders);
    // A legacy session on C, with its standalone GET stream.
    const init = await fetch(c.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } },
      }),
    });
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const legacyHeaders = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    expect(
      (
        await fetch(c.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...legacyHeaders },
          body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        })
      ).status,
    ).toBe(202);
    const legacy = openStream(c.url, {}, legacyHeaders);
    for (const s of [onB, onC, balanced])
      await expect.poll(() => s.messages.some((m) => m.method === 'notifications/subscriptions/acknowledged'), { timeout: 10_000 }).toBe(true);
    await expect.poll(legacy.isOpen, { timeout: 10_000 }).toBe(true);

    const added = await (await a.call('add_tool', { name: 'extra_one' })).json();
    expect(added.result.content[0].text).toBe('added extra_one');
    for (const s of [onB, onC, balanced, legacy]) await expect.poll(() => toolsChanged(s.messages), { timeout: 10_000 }).toBe(true);
    const onBChanges = onB.messages.filter((m) => m.method === 'notifications/tools/list_changed');
    expect(onBChanges).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'on-b' } } },
    ]);
    expect(legacy.messages.filter((m) => m.method === 'notifications/tools/list_changed')).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    ]);
  }, 90_000);

  it('a task started on one instance is read through the balancer, answered and cancelled through the others; the running tool sees the cancellation', async () => {
    const { cwd, instances, nginx } = shared;
    const [a, b, c] = instances;
    // Only this test's reads count in the balancer's log (the cluster served the tests before it).
    const logStart = readFileSync(join(nginx.dir, 'access.log'), 'utf8').length;
    // tasks/update: the answer reaches the instance that waits for it.
    const asking = (await rpc(a.url, 'tools/call', { name: 'ask_name', arguments: {} }, 'ask_name', WITH_TASKS_AND_ELICITATION)).result;
    expect(asking.resultType).toBe('task');
    await expect
      .poll(async () => (await rpc(nginx.url, 'tasks/get', { taskId: asking.taskId }, asking.taskId)).result.status, { timeout: 10_000 })
      .toBe('input_required');
    const ack = await rpc(
      b.url,
      'tasks/update',
      { taskId: asking.taskId, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } },
      asking.taskId,
    );
    expect(ack.result).toBeDefined();
    await expect
      .poll(async () => (await rpc(c.url, 'tasks/get', { taskId: asking.taskId }, asking.taskId)).result.status, { timeout: 10_000 })
      .toBe('completed');
    expect((await rpc(nginx.url, 'tasks/get', { taskId: asking.taskId }, asking.taskId)).result.result.content).toEqual([{ type: 'text', text: 'Hello, Ada' }]);

    // tasks/cancel on C for a task A runs: cancelled at once for every reader, and A's tool stops.
    const running = (await rpc(a.url, 'tools/call', { name: 'forever', arguments: {} }, 'forever')).result;
    await expect.poll(a.stderr, { timeout: 10_000 }).toMatch(/forever started/);
    for (let i = 0; i < 3; i++) expect((await rpc(nginx.url, 'tasks/get', { taskId: running.taskId }, running.taskId)).result.status).toBe('working');
    // B watches the task's status on a listen stream (notifications/tasks) while A runs it.
    const watching = openStream(
      b.url,
      { jsonrpc: '2.0', id: 'watch', method: 'subscriptions/listen', params: { notifications: { taskIds: [running.taskId] }, _meta: modernMeta(WITH_TASKS) } },
      listenHeaders,
    );
    await expect.poll(() => watching.messages.find((m) => m.method === 'notifications/tasks')?.params.status, { timeout: 10_000 }).toBe('working');
    expect((await rpc(c.url, 'tasks/cancel', { taskId: running.taskId }, running.taskId)).result).toBeDefined();
    expect((await rpc(b.url, 'tasks/get', { taskId: running.taskId }, running.taskId)).result.status).toBe('cancelled');
    await expect.poll(a.stderr, { timeout: 10_000 }).toMatch(/forever stopped/);
    expect(b.stderr() + c.stderr()).not.toMatch(/forever/);
    // C's cancellation reached B's watcher through the bus.
    await expect
      .poll(() => watching.messages.some((m) => m.method === 'notifications/tasks' && m.params.status === 'cancelled'), { timeout: 10_000 })
      .toBe(true);
    // The balancer spread the reads over all three instances.
    const upstreams = new Set(
      readFileSync(join(nginx.dir, 'access.log'), 'utf8')
        .slice(logStart)
        .split('\n')
        .filter((l) => l.startsWith('tasks/get'))
        .map((l) => l.split(' ')[1]),
    );
    expect(upstreams.size).toBe(3);
    // The tasks were kept in Redis (server.state.redis, no store named), not in a file of the common folder.
    expect(readdirSync(cwd, { recursive: true }).filter((f) => String(f).includes('tasks.db'))).toEqual([]);
  }, 90_000);

  it("a legacy session's answer to an elicitation reaches the instance that asked, though it is posted to another", async () => {
    const { instances } = shared;
    const [a, b] = instances;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(a.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'legacy', version: '1' } },
      }),
    });
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await init.text();
    expect(
      (
        await fetch(a.url, {
          method: 'POST',
          headers: { ...headers, ...session },
          body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        })
      ).status,
    ).toBe(202);
    // The call runs on A; its elicitation comes on the call's own stream from A.
    const call = openStream(a.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: {} } }, session);
    await expect.poll(() => call.messages.find((m) => m.method === 'elicitation/create'), { timeout: 10_000 }).toBeDefined();
    const asked = call.messages.find((m) => m.method === 'elicitation/create')!;
    // The client answers through B (as a round-robin balancer may send it).
    const answered = await fetch(b.url, {
      method: 'POST',
      headers: { ...headers, ...session },
      body: JSON.stringify({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } }),
    });
    expect(answered.status).toBe(202);
    await expect.poll(() => call.messages.find((m) => m.id === 2), { timeout: 10_000 }).toBeDefined();
    expect(call.messages.find((m) => m.id === 2)!.result.content).toEqual([{ type: 'text', text: 'Hello, Ada' }]);
  }, 90_000);

  it('a legacy session created through one instance keeps working on the others, through the balancer, when that instance is killed', async () => {
    // The last test on the shared cluster: it kills A.
    const { instances, nginx } = shared;
    const [a, b] = instances;
    const post = (url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });
    const init = await post(a.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: { roots: {} }, clientInfo: { name: 'legacy', version: '1' } },
    });
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id')!;
    expect((await init.json()).result.protocolVersion).toBe('2025-06-18');
    const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    expect((await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
    // Another instance serves it before the first is gone (round-robin: no affinity needed)...
    const onB = await (await post(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session)).json();
    expect(onB.result.tools.map((t: { name: string }) => t.name)).toContain('add_tool');

    a.child.kill('SIGKILL');
    expect((await a.exit).signal).toBe('SIGKILL');
    // ...and after: every request through the balancer is answered, in the session's version.
    for (let id = 3; id < 9; id++) {
      const res = await post(nginx.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add_tool', arguments: { name: `t${id}` } } }, session);
      expect(res.status).toBe(200);
      expect((await res.json()).result.content[0].text).toBe(`added t${id}`);
    }
    // A session id no instance ever issued is still unknown everywhere.
    expect(
      (await post(nginx.url, { jsonrpc: '2.0', id: 10, method: 'ping' }, { ...session, 'mcp-session-id': '00000000-0000-4000-8000-000000000000' })).status,
    ).toBe(404);
    // DELETE ends it for every instance.
    expect((await fetch(nginx.url, { method: 'DELETE', headers: session })).status).toBe(200);
    for (const url of [b.url, instances[2].url]) expect((await post(url, { jsonrpc: '2.0', id: 11, method: 'ping' }, session)).status).toBe(404);
  }, 90_000);

  it('SIGKILL of the instance running a task: the others fail it once its lease runs out, read through the balancer', async () => {
    const { instances, nginx } = await cluster({ leaseMs: 2_000 });
    const [a] = instances;
    const running = (await rpc(a.url, 'tools/call', { name: 'forever', arguments: {} }, 'forever')).result;
    await expect.poll(a.stderr, { timeout: 10_000 }).toMatch(/forever started/);
    a.child.kill('SIGKILL');
    expect((await a.exit).signal).toBe('SIGKILL');
    // nginx skips the dead instance (proxy_next_upstream error); the survivors fail the task after the lease.
    await expect
      .poll(async () => (await rpc(nginx.url, 'tasks/get', { taskId: running.taskId }, running.taskId)).result?.status, { timeout: 30_000, interval: 200 })
      .toBe('failed');
    const failed = (await rpc(nginx.url, 'tasks/get', { taskId: running.taskId }, running.taskId)).result;
    expect(failed.error.message).toMatch(/restarted while the task was running/);
  }, 90_000);
});
