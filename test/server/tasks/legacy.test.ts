import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../../src/server/server.js';
import { defineTool, type ToolContext } from '../../../src/server/tool.js';
import { startHttp, sseMessages } from '../../helpers/http.js';
import { abortableSleep } from '../../helpers/tasks.js';
import { tempDir } from '../../helpers/temp.js';
import { wire } from '../../helpers/wire.js';

const sleep = abortableSleep;

function tools() {
  return [
    defineTool({
      name: 'slow',
      description: 'd',
      inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
      task: { afterMs: 5_000 },
      handler: async ({ ms }, ctx: ToolContext) => {
        await sleep(ms ?? 50, ctx.signal);
        return `slept ${ms ?? 50}`;
      },
    }),
    defineTool({ name: 'strict', description: 'd', inputSchema: { type: 'object' }, task: 'required', handler: () => 'strict done' }),
    defineTool({
      name: 'failing',
      description: 'd',
      inputSchema: { type: 'object' },
      task: 'always',
      handler: () => ({ content: [{ type: 'text', text: 'no data' }], isError: true }),
    }),
    defineTool({ name: 'plain', description: 'd', inputSchema: { type: 'object' }, handler: () => 'plain' }),
  ];
}

const server = (dir: string, extra: Record<string, unknown> = {}) =>
  new ToolServer({ tools: tools(), audit: false, tasks: { store: join(dir, 'tasks.db'), pollIntervalMs: 20, ...extra } });

async function legacy(dir = tempDir('tw-legacy-tasks-')) {
  const w = wire(server(dir));
  const init = await w.initialize('2025-11-25');
  return { w, init };
}

describe('tasks in the 2025-11-25 form (legacy sessions)', () => {
  it('advertises tasks.requests.tools.call, list and cancel; tools/list says execution.taskSupport per tool', async () => {
    const { w, init } = await legacy();
    expect(init.result.capabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    expect(init.result.capabilities.extensions).toBeUndefined();
    const listed = (await w.request('tools/list', {})).result.tools;
    const support = Object.fromEntries(listed.map((t: any) => [t.name, t.execution?.taskSupport]));
    expect(support).toEqual({ slow: 'optional', strict: 'required', failing: 'optional', plain: undefined });
    // The modern listing carries no execution member.
    const modern = (await w.modern('tools/list')).result.tools;
    expect(modern.every((t: any) => t.execution === undefined)).toBe(true);
  });

  it('a task-augmented call answers CreateTaskResult at once; tasks/get polls it; tasks/result blocks until the result, with related-task _meta', async () => {
    const { w } = await legacy();
    const created = (await w.request('tools/call', { name: 'slow', arguments: { ms: 150 }, task: { ttl: 60_000 } })).result;
    expect(created.task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 20 });
    expect(Object.keys(created)).toEqual(['task']);
    const taskId = created.task.taskId;
    expect((await w.request('tasks/get', { taskId })).result).toMatchObject({ taskId, status: 'working', ttl: 60_000 });
    const result = (await w.request('tasks/result', { taskId })).result;
    expect(result).toEqual({ content: [{ type: 'text', text: 'slept 150' }], _meta: { 'io.modelcontextprotocol/related-task': { taskId } } });
    const done = (await w.request('tasks/get', { taskId })).result;
    expect(done).toMatchObject({ status: 'completed' });
    expect(done).not.toHaveProperty('result');
    // notifications/tasks/status reached the session (optional in the spec; sent here).
    expect(w.written.filter((m) => m.method === 'notifications/tasks/status').map((m) => m.params.status)).toContain('completed');
  });

  it('a required tool without params.task, and a never tool with it, are -32601; a bad task.ttl is -32602; the TTL is capped by the operator', async () => {
    const { w } = await legacy();
    expect((await w.request('tools/call', { name: 'strict', arguments: {} })).error).toMatchObject({
      code: -32601,
      message: expect.stringMatching(/must be called as a task/),
    });
    expect((await w.request('tools/call', { name: 'plain', arguments: {}, task: {} })).error.code).toBe(-32601);
    expect((await w.request('tools/call', { name: 'slow', arguments: {}, task: { ttl: -1 } })).error.code).toBe(-32602);
    expect((await w.request('tools/call', { name: 'slow', arguments: {}, task: { ttl: 10 ** 9 } })).result.task.ttl).toBe(3_600_000);
    // Without params.task an optional tool is an ordinary call.
    expect((await w.request('tools/call', { name: 'slow', arguments: { ms: 1 } })).result.content[0].text).toBe('slept 1');
  });

  it('a tool result with isError reads failed; tasks/result gives that result', async () => {
    const { w } = await legacy();
    const { taskId } = (await w.request('tools/call', { name: 'failing', arguments: {}, task: {} })).result.task;
    const result = (await w.request('tasks/result', { taskId })).result;
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'no data' }] });
    expect((await w.request('tasks/get', { taskId })).result.status).toBe('failed');
  });

  it('tasks/cancel cancels a running task before answering, is -32602 on a terminal one; tasks/result of a cancelled task is an error', async () => {
    const { w } = await legacy();
    const { taskId } = (await w.request('tools/call', { name: 'slow', arguments: { ms: 60_000 }, task: {} })).result.task;
    const pending = w.request('tasks/result', { taskId });
    const cancelled = (await w.request('tasks/cancel', { taskId })).result;
    expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
    expect((await pending).error).toMatchObject({ code: -32603, message: expect.stringMatching(/cancelled/) });
    expect((await w.request('tasks/cancel', { taskId })).error).toMatchObject({
      code: -32602,
      message: "Cannot cancel task: already in terminal status 'cancelled'",
    });
    expect((await w.request('tasks/get', { taskId: 'nope' })).error).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' });
  });

  it("tasks/list pages through the caller's tasks with an opaque cursor; a forged cursor is -32602", async () => {
    const { w } = await legacy();
    const ids: string[] = [];
    for (let i = 0; i < 53; i++) ids.push((await w.request('tools/call', { name: 'failing', arguments: {}, task: {} })).result.task.taskId);
    const first = (await w.request('tasks/list', {})).result;
    expect(first.tasks).toHaveLength(50);
    const second = (await w.request('tasks/list', { cursor: first.nextCursor })).result;
    expect(second.nextCursor).toBeUndefined();
    expect(new Set([...first.tasks, ...second.tasks].map((t: any) => t.taskId))).toEqual(new Set(ids));
    expect((await w.request('tasks/list', { cursor: 'not-a-cursor' })).error.code).toBe(-32602);
    // The modern era has no tasks/list or tasks/result.
    expect((await w.modern('tasks/list', {})).error.code).toBe(-32601);
  });

  it("over HTTP, one session's principal cannot see another's task (get, result, cancel, list)", async () => {
    const http = await startHttp(server(tempDir('tw-legacy-tasks-')), {
      authenticate: (req) => (typeof req.headers['x-user'] === 'string' ? req.headers['x-user'] : undefined),
    });
    try {
      const body = async (res: Response) => {
        const text = await res.text();
        return (res.headers.get('content-type') ?? '').includes('event-stream') ? sseMessages(text).at(-1)! : JSON.parse(text);
      };
      const open = async (user: string) => {
        const res = await http.post(
          { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
          { 'x-user': user },
        );
        const session = res.headers.get('mcp-session-id')!;
        const headers = { 'x-user': user, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
        await http.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
        return (method: string, params: Record<string, unknown>) => http.post({ jsonrpc: '2.0', id: 2, method, params }, headers).then(body);
      };
      const alice = await open('alice');
      const mallory = await open('mallory');
      const { taskId } = (await alice('tools/call', { name: 'slow', arguments: { ms: 10 }, task: {} })).result.task;
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel'])
        expect((await mallory(method, { taskId })).error).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' });
      expect((await mallory('tasks/list', {})).result.tasks).toEqual([]);
      expect((await alice('tasks/result', { taskId })).result.content[0].text).toBe('slept 10');
    } finally {
      await http.close();
    }
  });
});
