import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../../src/server/server.js';
import { defineTool, type ToolContext } from '../../../src/server/tool.js';
import { sseMessages, startHttp } from '../../helpers/http.js';
import { tempDir } from '../../helpers/temp.js';
import { wire } from '../../helpers/wire.js';

const RELATED = 'io.modelcontextprotocol/related-task';

function tools() {
  return [
    defineTool({
      name: 'ask_name',
      description: 'd',
      inputSchema: { type: 'object' },
      task: 'always',
      handler: async (_args, ctx: ToolContext) => {
        const answer = await ctx.elicit('Your name?', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
        return answer.action === 'accept' ? `Hello, ${answer.content?.name}` : `no name (${answer.action})`;
      },
    }),
    defineTool({
      name: 'two_questions',
      description: 'd',
      inputSchema: { type: 'object' },
      task: 'always',
      handler: async (_args, ctx: ToolContext) => {
        const [answer, roots] = await Promise.all([ctx.elicit('Colour?', { type: 'object', properties: { colour: { type: 'string' } } }), ctx.listRoots()]);
        return `${answer.action} ${roots.roots.length} roots`;
      },
    }),
    defineTool({
      name: 'steps',
      description: 'd',
      inputSchema: { type: 'object' },
      task: 'always',
      handler: async (_args, ctx: ToolContext) => {
        for (let i = 1; i <= 2; i++) {
          await new Promise((r) => setTimeout(r, 10));
          ctx.progress(i, 2, `step ${i}`);
        }
        return 'done';
      },
    }),
  ];
}

const server = (dir: string) => new ToolServer({ tools: tools(), audit: false, tasks: { store: join(dir, 'tasks.db'), pollIntervalMs: 20 } });

async function until<T>(probe: () => T | undefined, what: string, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('input asked inside a legacy task (2025-11-25 tasks.mdx "Input Required Status")', () => {
  it('on a single-channel session: the elicitation carries related-task, the task reads input_required until answered, then working and completed', async () => {
    const w = wire(server(tempDir('tw-legacy-input-')));
    await w.request('initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '1' } });
    w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const { taskId } = (await w.request('tools/call', { name: 'ask_name', arguments: {}, task: {} })).result.task;
    const asked = await until(() => w.written.find((m) => m.method === 'elicitation/create'), 'elicitation/create');
    expect(asked.params._meta).toEqual({ [RELATED]: { taskId } });
    expect(asked.params.message).toBe('Your name?');
    await until(() => w.written.find((m) => m.method === 'notifications/tasks/status' && m.params.status === 'input_required'), 'input_required notification');
    expect((await w.request('tasks/get', { taskId })).result).toMatchObject({ taskId, status: 'input_required' });
    const result = w.request('tasks/result', { taskId });
    w.send({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' }, _meta: { [RELATED]: { taskId } } } });
    expect((await result).result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada' }], _meta: { [RELATED]: { taskId } } });
    const statuses = w.written.filter((m) => m.method === 'notifications/tasks/status').map((m) => m.params.status);
    expect(statuses).toEqual(['input_required', 'working', 'completed']);
  });
});

/** An SSE response read as it arrives. */
function streamOf(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    async until(found: (messages: Array<Record<string, any>>) => boolean, ms = 5_000): Promise<Array<Record<string, any>>> {
      const end = Date.now() + ms;
      while (!found(sseMessages(text))) {
        if (Date.now() > end) throw new Error(`stream timed out; had ${text}`);
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      return sseMessages(text);
    },
  };
}

describe('progress of a legacy task (tasks.mdx "Task Progress Notifications")', () => {
  it("the call's progressToken stays valid after the CreateTaskResult: notifications/progress reach the session, tagged with the task", async () => {
    const w = wire(server(tempDir('tw-legacy-input-')));
    await w.initialize('2025-11-25');
    const created = await w.request('tools/call', { name: 'steps', arguments: {}, task: {}, _meta: { progressToken: 'p-1' } });
    const { taskId } = created.result.task;
    expect((await w.request('tasks/result', { taskId })).result.content).toEqual([{ type: 'text', text: 'done' }]);
    const progress = w.written.filter((m) => m.method === 'notifications/progress');
    expect(progress.map((m) => m.params)).toEqual([
      { progressToken: 'p-1', progress: 1, total: 2, message: 'step 1', _meta: { [RELATED]: { taskId } } },
      { progressToken: 'p-1', progress: 2, total: 2, message: 'step 2', _meta: { [RELATED]: { taskId } } },
    ]);
    // Sent after the handle, not before (the call's own answer came first).
    expect(w.written.indexOf(progress[0])).toBeGreaterThan(w.written.indexOf(created));
  });
});

describe('input asked inside a legacy task, over Streamable HTTP', () => {
  async function session(http: Awaited<ReturnType<typeof startHttp>>, capabilities: Record<string, unknown> = { elicitation: {}, roots: {} }) {
    const res = await http.post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 't', version: '1' } },
    });
    const id = res.headers.get('mcp-session-id')!;
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
    await http.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    let next = 10;
    const post = (body: Record<string, unknown>) => http.post({ jsonrpc: '2.0', ...body }, headers);
    const call = async (method: string, params: Record<string, unknown>) => {
      const text = await (await post({ id: next++, method, params })).text();
      return text.startsWith('{') ? JSON.parse(text) : sseMessages(text).at(-1)!;
    };
    return { post, call, open: (method: string, params: Record<string, unknown>) => post({ id: next++, method, params }) };
  }

  async function statusOf(s: Awaited<ReturnType<typeof session>>, taskId: string, wanted: string) {
    const end = Date.now() + 5_000;
    for (;;) {
      const task = (await s.call('tasks/get', { taskId })).result;
      if (task.status === wanted) return task;
      if (Date.now() > end) throw new Error(`task stayed ${task.status}`);
      await new Promise((r) => setTimeout(r, 15));
    }
  }

  it('tasks/get reads input_required; the elicitation is delivered on the tasks/result stream with related-task, answered by a POST; the stream ends with the result', async () => {
    const http = await startHttp(server(tempDir('tw-legacy-input-')));
    try {
      const s = await session(http);
      const { taskId } = (await s.call('tools/call', { name: 'ask_name', arguments: {}, task: {} })).result.task;
      const waiting = await statusOf(s, taskId, 'input_required');
      expect(waiting.statusMessage).toMatch(/elicitation\/create.*tasks\/result/);
      const stream = streamOf(await s.open('tasks/result', { taskId }));
      const asked = (await stream.until((m) => m.some((x) => x.method === 'elicitation/create'))).find((x) => x.method === 'elicitation/create')!;
      expect(asked.params).toMatchObject({ message: 'Your name?', _meta: { [RELATED]: { taskId } } });
      expect((await s.post({ id: asked.id, result: { action: 'accept', content: { name: 'Grace' } } })).status).toBe(202);
      const messages = await stream.until((m) => m.some((x) => 'result' in x || 'error' in x));
      expect(messages.at(-1)!.result).toEqual({ content: [{ type: 'text', text: 'Hello, Grace' }], _meta: { [RELATED]: { taskId } } });
      expect((await s.call('tasks/get', { taskId })).result.status).toBe('completed');
    } finally {
      await http.close();
    }
  });

  it('a tasks/result already waiting receives the request as it is asked; the task reads input_required until both concurrent questions are answered', async () => {
    const http = await startHttp(server(tempDir('tw-legacy-input-')));
    try {
      const s = await session(http);
      const { taskId } = (await s.call('tools/call', { name: 'two_questions', arguments: {}, task: {} })).result.task;
      const stream = streamOf(await s.open('tasks/result', { taskId }));
      const both = await stream.until((m) => m.filter((x) => x.method === 'elicitation/create' || x.method === 'roots/list').length === 2);
      const elicit = both.find((x) => x.method === 'elicitation/create')!;
      const roots = both.find((x) => x.method === 'roots/list')!;
      expect(roots.params._meta).toEqual({ [RELATED]: { taskId } });
      await s.post({ id: roots.id, result: { roots: [{ uri: 'file:///tmp/a' }] } });
      // One answer of two: still waiting for the client.
      expect((await s.call('tasks/get', { taskId })).result.status).toBe('input_required');
      await s.post({ id: elicit.id, result: { action: 'decline' } });
      const messages = await stream.until((m) => m.some((x) => 'result' in x || 'error' in x));
      expect(messages.at(-1)!.result.content).toEqual([{ type: 'text', text: 'decline 1 roots' }]);
    } finally {
      await http.close();
    }
  });

  it("another session's tasks/result does not take the request (its answer could not be routed); tasks/cancel while input_required cancels the task and drops the question", async () => {
    const http = await startHttp(server(tempDir('tw-legacy-input-')));
    try {
      const s = await session(http);
      const other = await session(http);
      const { taskId } = (await s.call('tools/call', { name: 'ask_name', arguments: {}, task: {} })).result.task;
      await statusOf(s, taskId, 'input_required');
      // Nothing is written on the foreign stream, so its response (headers included) only comes with the outcome.
      const foreignAnswer = other.open('tasks/result', { taskId });
      await new Promise((r) => setTimeout(r, 100));
      expect((await s.call('tasks/cancel', { taskId })).result).toMatchObject({ taskId, status: 'cancelled' });
      const foreignRes = await foreignAnswer;
      const text = await foreignRes.text();
      const seen = text.startsWith('{') ? [JSON.parse(text)] : sseMessages(text);
      expect(seen.some((x) => x.method === 'elicitation/create')).toBe(false);
      expect(seen.at(-1)!.error).toMatchObject({ code: -32603, message: expect.stringMatching(/cancelled/) });
      // The question went with the task: a later tasks/result of the creating session receives no request.
      const own = await s.call('tasks/result', { taskId });
      expect(own.method).toBeUndefined();
      expect(own.error.message).toMatch(/cancelled/);
      expect((await s.call('tasks/get', { taskId })).result.status).toBe('cancelled');
    } finally {
      await http.close();
    }
  });
});
