import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../../src/server/server.js';
import { defineTool, type ToolContext } from '../../../src/server/tool.js';
import { SqliteTaskStore } from '../../../src/tasks/sqlite-store.js';
import { startHttp } from '../../helpers/http.js';
import { abortableSleep, askNameTaskTool, TASKS_EXTENSION, WITH_TASKS_AND_ELICITATION } from '../../helpers/tasks.js';
import { tempDir } from '../../helpers/temp.js';
import { wire } from '../../helpers/wire.js';

const EXT = TASKS_EXTENSION;
const withTasks = WITH_TASKS_AND_ELICITATION;
const sleep = abortableSleep;

function tools() {
  return [
    defineTool({ name: 'quick', description: 'd', inputSchema: { type: 'object' }, task: 'always', handler: () => 'done quickly' }),
    defineTool({
      name: 'slow',
      description: 'd',
      inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
      task: 'always',
      handler: async ({ ms }, ctx: ToolContext) => {
        await sleep(ms ?? 50, ctx.signal);
        return `slept ${ms ?? 50}`;
      },
    }),
    defineTool({
      name: 'strict',
      description: 'd',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      task: 'required',
      handler: ({ n }) => `n=${n}`,
    }),
    defineTool({
      name: 'maybe',
      description: 'd',
      inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
      task: { afterMs: 100 },
      handler: async ({ ms }, ctx: ToolContext) => {
        await sleep(ms, ctx.signal);
        return `after ${ms}`;
      },
    }),
    askNameTaskTool(),
    defineTool({ name: 'plain', description: 'd', inputSchema: { type: 'object' }, handler: () => 'plain' }),
  ];
}

function server(dir: string, extra: Record<string, unknown> = {}) {
  return new ToolServer({ tools: tools(), audit: false, tasks: { store: join(dir, 'tasks.db'), pollIntervalMs: 20, ...extra } });
}

async function until(get: () => Promise<Record<string, any>>, done: (r: Record<string, any>) => boolean): Promise<Record<string, any>> {
  let last: Record<string, any> = {};
  await expect.poll(async () => done((last = await get())), { timeout: 5_000, interval: 20 }).toBe(true);
  return last;
}

describe('tasks extension (SEP-2663), modern tools/call', () => {
  it('discover advertises the extension; a declaring client gets a flat CreateTaskResult, then the result on tasks/get', async () => {
    const w = wire(server(tempDir('tw-tasks-')));
    const discover = await w.modern('server/discover');
    expect(discover.result.capabilities.extensions).toEqual({ [EXT]: {} });
    const created = (await w.modern('tools/call', { name: 'slow', arguments: { ms: 50 } }, withTasks)).result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 20 });
    expect(created.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(created.createdAt)).not.toBeNaN();
    for (const absent of ['result', 'error', 'inputRequests', 'requestState', 'ttl', 'pollInterval', 'task']) expect(created).not.toHaveProperty(absent);
    const first = (await w.modern('tasks/get', { taskId: created.taskId }, withTasks)).result;
    expect(first).toMatchObject({ resultType: 'complete', taskId: created.taskId, status: 'working' });
    const done = await until(
      async () => (await w.modern('tasks/get', { taskId: created.taskId }, withTasks)).result,
      (r) => r.status === 'completed',
    );
    expect(done.result.content).toEqual([{ type: 'text', text: 'slept 50' }]);
  });

  it('a client that did not declare the extension gets the direct result, a required tool -32021 naming it, and tasks/* -32021', async () => {
    const w = wire(server(tempDir('tw-tasks-')));
    const direct = (await w.modern('tools/call', { name: 'slow', arguments: { ms: 1 } })).result;
    expect(direct).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'slept 1' }] });
    const refused = await w.modern('tools/call', { name: 'strict', arguments: { n: 1 } });
    expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [EXT]: {} } } } });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      expect((await w.modern(method, { taskId: 'x', inputResponses: {} })).error.code).toBe(-32021);
    }
    // tasks/result and tasks/list are not part of the extension.
    expect((await w.modern('tasks/result', { taskId: 'x' }, withTasks)).error.code).toBe(-32601);
    expect((await w.modern('tasks/list', {}, withTasks)).error.code).toBe(-32601);
  });

  it('a tool without a task mode is never a task; an unknown task id is -32602', async () => {
    const w = wire(server(tempDir('tw-tasks-')));
    expect((await w.modern('tools/call', { name: 'plain', arguments: {} }, withTasks)).result).toMatchObject({ resultType: 'complete' });
    const unknown = await w.modern('tasks/get', { taskId: 'no-such-task' }, withTasks);
    expect(unknown.error).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' });
    expect((await w.modern('tasks/get', {}, withTasks)).error.code).toBe(-32602);
  });

  it('{ afterMs }: a call that answers in time is direct, one that does not becomes a task', async () => {
    const w = wire(server(tempDir('tw-tasks-')));
    const fast = (await w.modern('tools/call', { name: 'maybe', arguments: { ms: 1 } }, withTasks)).result;
    expect(fast).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'after 1' }] });
    const slow = (await w.modern('tools/call', { name: 'maybe', arguments: { ms: 400 } }, withTasks)).result;
    expect(slow.resultType).toBe('task');
    const done = await until(
      async () => (await w.modern('tasks/get', { taskId: slow.taskId }, withTasks)).result,
      (r) => r.status === 'completed',
    );
    expect(done.result.content[0].text).toBe('after 400');
  });

  it('the work runs through the pipeline: invalid arguments complete the task with an isError result', async () => {
    const w = wire(server(tempDir('tw-tasks-')));
    const created = (await w.modern('tools/call', { name: 'strict', arguments: { n: 'x' } }, withTasks)).result;
    const done = await until(
      async () => (await w.modern('tasks/get', { taskId: created.taskId }, withTasks)).result,
      (r) => r.status === 'completed',
    );
    expect(done.result.isError).toBe(true);
  });

  it('input asked inside a task: input_required with inputRequests, answered by tasks/update (empty ack), then completed', async () => {
    const w = wire(server(tempDir('tw-tasks-')));
    const { taskId } = (await w.modern('tools/call', { name: 'ask', arguments: {} }, withTasks)).result;
    const waiting = await until(
      async () => (await w.modern('tasks/get', { taskId }, withTasks)).result,
      (r) => r.status === 'input_required',
    );
    expect(waiting.inputRequests.name).toMatchObject({ method: 'elicitation/create', params: { message: 'Your name?' } });
    expect(waiting).not.toHaveProperty('requestState');
    const ack = (await w.modern('tasks/update', { taskId, inputResponses: { nope: {}, name: { action: 'accept', content: { name: 'Ada' } } } }, withTasks))
      .result;
    expect(Object.keys(ack).sort()).toEqual(['_meta', 'resultType']);
    const done = await until(
      async () => (await w.modern('tasks/get', { taskId }, withTasks)).result,
      (r) => r.status === 'completed',
    );
    expect(done.result.content[0].text).toBe('Hello, Ada');
    expect((await w.modern('tasks/update', { taskId, inputResponses: 'x' }, withTasks)).error.code).toBe(-32602);
  });

  it('tasks/cancel acknowledges, stops the work and the task reads cancelled; cancelling again is the same ack', async () => {
    const w = wire(server(tempDir('tw-tasks-')));
    const { taskId } = (await w.modern('tools/call', { name: 'slow', arguments: { ms: 60_000 } }, withTasks)).result;
    expect((await w.modern('tasks/cancel', { taskId }, withTasks)).result.resultType).toBe('complete');
    const cancelled = (await w.modern('tasks/get', { taskId }, withTasks)).result;
    expect(cancelled.status).toBe('cancelled');
    expect((await w.modern('tasks/cancel', { taskId }, withTasks)).result.resultType).toBe('complete');
  });

  it('a task past its TTL is the unknown-task error', async () => {
    const w = wire(server(tempDir('tw-tasks-'), { ttlMs: 150 }));
    const { taskId } = (await w.modern('tools/call', { name: 'quick', arguments: {} }, withTasks)).result;
    expect((await w.modern('tasks/get', { taskId }, withTasks)).result.taskId).toBe(taskId);
    await sleep(200);
    expect((await w.modern('tasks/get', { taskId }, withTasks)).error.code).toBe(-32602);
  });

  it('the store keeps a finished task for its owner only', async () => {
    const dir = tempDir('tw-tasks-');
    const store = new SqliteTaskStore(join(dir, 't.db'));
    const now = Date.now();
    await store.create({ taskId: 't1', owner: 'alice', tool: 'x', status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs: 60_000, pollIntervalMs: 10 });
    await store.update('t1', { status: 'completed', result: { content: [] } });
    // Terminal states never change.
    await store.update('t1', { status: 'failed', error: { code: 1, message: 'm' } });
    expect(await store.get('t1', 'bob')).toBeUndefined();
    expect(await store.get('t1', 'alice')).toMatchObject({ status: 'completed', result: { content: [] } });
    store.close();
  });
});

describe('tasks over HTTP with two principals', () => {
  it("one principal's task is the unknown-task error for another, for get, update and cancel alike", async () => {
    const dir = tempDir('tw-tasks-');
    const http = await startHttp(server(dir), { authenticate: (req) => (typeof req.headers['x-user'] === 'string' ? req.headers['x-user'] : undefined) });
    try {
      const as = (user: string) => ({ 'x-user': user });
      const res = await http.modern('tools/call', { name: 'slow', arguments: { ms: 200 } }, as('alice'), withTasks);
      const { taskId } = (await res.json()).result;
      const get = async (user: string, method = 'tasks/get') =>
        (await http.modern(method, { taskId, inputResponses: {} }, { ...as(user), 'mcp-name': taskId }, withTasks)).json();
      expect((await get('alice')).result.taskId).toBe(taskId);
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
        const other = await get('mallory', method);
        const never = await (
          await http.modern(
            method,
            { taskId: 'f3a1e2d4-0000-4000-8000-000000000000', inputResponses: {} },
            { ...as('mallory'), 'mcp-name': 'f3a1e2d4-0000-4000-8000-000000000000' },
            withTasks,
          )
        ).json();
        expect(other.error).toEqual(never.error);
        expect(other.error.code).toBe(-32602);
      }
      // Mallory's cancel did nothing: alice's task still completes.
      await until(
        async () => (await get('alice')).result,
        (r) => r.status === 'completed',
      );
      // tasks/get needs Mcp-Name mirroring taskId (SEP-2663 "Routing Headers").
      const mismatch = await http.modern('tasks/get', { taskId }, { ...as('alice'), 'mcp-name': 'other' }, withTasks);
      expect(mismatch.status).toBe(400);
      expect((await mismatch.json()).error.code).toBe(-32020);
    } finally {
      await http.close();
    }
  });
});
