import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelledError, McpRpcError, ProtocolViolationError, TaskCancelledError, TaskFailedError, ToolClient, type TaskInfo } from '../../src/client.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { cliCommand } from '../helpers/serve-process.js';
import { expectAbortCancelsTask } from '../helpers/task-client.js';
import { auditEnv, sharedTempDir, tempDir } from '../helpers/temp.js';
import { modernServer, scriptedTransport } from './scripted-server.js';
import taskTools from '../fixtures/tasks/client-tools.mjs';

// The client running calls that the server turns into tasks (io.modelcontextprotocol/tasks):
// a real toolwright server over HTTP on 127.0.0.1, and `toolwright serve --stdio` as a child process.

const EXT = 'io.modelcontextprotocol/tasks';
const fixture = fileURLToPath(new URL('../fixtures/tasks/client-tools.mjs', import.meta.url));
const textOf = (result: { content: Array<{ type: string; text?: string }> }) => result.content.map((b) => b.text ?? '').join('');

let http: HttpServerHandle;
let server: ToolServer;
let temp: { dir: string; remove: () => void };
beforeAll(async () => {
  temp = sharedTempDir('tw-client-tasks-');
  server = new ToolServer({ tools: taskTools, audit: false, tasks: { store: join(temp.dir, 'tasks.db'), pollIntervalMs: 30 } });
  http = await serveHttp(server, { port: 0 });
});
afterAll(async () => {
  await http.close();
  server.close();
  temp.remove();
});

const connect = (options: ConstructorParameters<typeof ToolClient>[1] = {}) =>
  ToolClient.connect({ url: http.url }, { era: 'modern', timeoutMs: 10_000, ...options });

describe('client: calls that become tasks (modern HTTP)', () => {
  it('task: true declares the extension; the client polls tasks/get and resolves with the final result, telling each status', async () => {
    const client = await connect();
    const seen: TaskInfo[] = [];
    const result = await client.callTool('report', { steps: 3, stepMs: 60 }, { task: { onTask: (t) => seen.push(t) } });
    expect(textOf(result)).toBe('report ready: 3 steps');
    expect(seen[0]).toMatchObject({ status: 'working', pollIntervalMs: 30, ttlMs: 3_600_000 });
    expect(seen[0].taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.at(-1)).toMatchObject({ taskId: seen[0].taskId, status: 'completed' });
    // Progress reached the caller as status messages while it ran.
    expect(seen.some((t) => /step \d of 3/.test(t.statusMessage ?? ''))).toBe(true);
    // The finished task can still be read by id.
    expect(await client.getTask(seen[0].taskId)).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'report ready: 3 steps' }] } });
    await client.close();
  });

  it('without task the same tool is answered directly; a required-task tool is -32021 naming the extension', async () => {
    const client = await connect();
    expect(textOf(await client.callTool('report', { steps: 1, stepMs: 0 }))).toBe('report ready: 1 steps');
    const refused = await client.callTool('strict', {}).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpRpcError);
    expect(refused).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [EXT]: {} } } } });
    expect(textOf(await client.callTool('strict', {}, { task: true }))).toBe('strict done');
    // A tool that never becomes a task is answered directly even with task: true.
    expect(textOf(await client.callTool('plain', {}, { task: true }))).toBe('plain answer');
    await client.close();
  });

  it('a tool error inside the task is the completed result with isError', async () => {
    const client = await connect();
    const result = await client.callTool('broken', {}, { task: true });
    expect(result.isError).toBe(true);
    // A thrown Error's text stays in the server log; the task's result carries the correlation id.
    expect(textOf(result)).toMatch(/Tool broken failed because of an internal error \(correlation id [0-9a-f-]+\)/);
    await client.close();
  });

  it('input the task asks for is answered once by onInputRequest through tasks/update', async () => {
    const asked: string[] = [];
    const client = await connect({
      onInputRequest: (request) => {
        asked.push(request.method);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    const statuses: string[] = [];
    const result = await client.callTool('ask_name', {}, { task: { onTask: (t) => statuses.push(t.status) } });
    expect(textOf(result)).toBe('Hello, Ada');
    expect(asked).toEqual(['elicitation/create']);
    expect(statuses).toContain('input_required');
    expect(statuses.at(-1)).toBe('completed');
    await client.close();
  });

  it('aborting the signal sends tasks/cancel: the work stops and the task reads cancelled', async () => {
    const client = await connect();
    await expectAbortCancelsTask(client, 'forever');
    await client.close();
  });

  it('getTask of an unknown id is -32602; cancelTask of a finished task is a plain acknowledgement', async () => {
    const client = await connect();
    const unknown = await client.getTask('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: -32602, message: expect.stringMatching(/Task not found/) });
    let id = '';
    await client.callTool('strict', {}, { task: { onTask: (t) => (id = t.taskId) } });
    await expect(client.cancelTask(id)).resolves.toBeUndefined();
    expect((await client.getTask(id)).status).toBe('completed');
    await expect(client.getTask('')).rejects.toThrow(TypeError);
    await client.close();
  });
});

describe('client: tasks over stdio (toolwright serve --stdio, a child process)', () => {
  it('runs a call as a task, and cancels another one through tasks/cancel', async () => {
    const cwd = tempDir('tw-client-tasks-stdio-');
    let stderr = '';
    const client = await ToolClient.connect(
      {
        command: cliCommand[0],
        args: [...cliCommand.slice(1), 'serve', '--stdio', '--tools', fixture],
        cwd,
        stderr: 'capture',
        onStderr: (t) => (stderr += t),
        env: { ...auditEnv(), TOOLWRIGHT_AUDIT_DIR: cwd },
      },
      { era: 'modern', timeoutMs: 15_000 },
    );
    try {
      let created = '';
      const result = await client.callTool('report', { steps: 2, stepMs: 20 }, { task: { onTask: (t) => (created ||= t.taskId) } });
      expect(textOf(result)).toBe('report ready: 2 steps');
      expect(created).not.toBe('');
      const controller = new AbortController();
      const call = client.callTool('forever', {}, { signal: controller.signal, task: true });
      await expect.poll(() => stderr, { timeout: 10_000 }).toMatch(/forever started/);
      controller.abort();
      await expect(call).rejects.toBeInstanceOf(CancelledError);
      await expect.poll(() => stderr, { timeout: 5_000 }).toMatch(/forever stopped/);
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('client: a hostile server answering with tasks', () => {
  const script = (get: (request: Record<string, any>) => Record<string, unknown>) => {
    const tools = [{ name: 'job', description: 'd', inputSchema: { type: 'object' } }];
    return scriptedTransport((request, send) => {
      if (request.method === 'tools/call') return { resultType: 'task', taskId: 't-1', status: 'working', ttlMs: null, pollIntervalMs: 0 };
      // Sent by hand: a result with an "error" member (a failed task) is still a result.
      if (request.method === 'tasks/get') return void send({ id: request.id, result: get(request) });
      return modernServer(tools)(request, send);
    });
  };

  it('a task handle is accepted only on a request that declared the extension', async () => {
    const transport = script(() => ({}));
    const client = await ToolClient.connect({ transport }, { era: 'modern' });
    await expect(client.callTool('job', {})).rejects.toBeInstanceOf(ProtocolViolationError);
    const call = transport.sent.find((m) => m.method === 'tools/call')!;
    expect(call.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions).toBeUndefined();
  });

  it('declares the extension on that request only; unknown statuses and results without content are refused; a 0 ms interval is no busy loop', async () => {
    let polls = 0;
    const transport = script(() =>
      ++polls < 3
        ? { resultType: 'complete', taskId: 't-1', status: 'working', ttlMs: null, pollIntervalMs: 0 }
        : { resultType: 'complete', taskId: 't-1', status: 'sleeping' },
    );
    const client = await ToolClient.connect({ transport }, { era: 'modern' });
    const started = Date.now();
    await expect(client.callTool('job', {}, { task: true })).rejects.toThrow(/unknown task status "sleeping"/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 20); // three polls, each at least the client's floor apart
    const call = transport.sent.find((m) => m.method === 'tools/call')!;
    expect(call.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions).toEqual({ [EXT]: {} });
    const list = transport.sent.find((m) => m.method === 'tools/list')!;
    expect(list.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions).toBeUndefined();
    const gets = transport.sent.filter((m) => m.method === 'tasks/get');
    expect(gets.every((m) => m.params.taskId === 't-1' && m.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions[EXT])).toBe(true);
  });

  it('a task cancelled by the server is TaskCancelledError; an answer about another task is refused', async () => {
    const cancelled = await ToolClient.connect(
      { transport: script(() => ({ taskId: 't-1', status: 'cancelled', statusMessage: 'operator stopped it', ttlMs: null })) },
      { era: 'modern' },
    );
    await expect(cancelled.callTool('job', {}, { task: true })).rejects.toBeInstanceOf(TaskCancelledError);
    const other = await ToolClient.connect({ transport: script(() => ({ taskId: 't-2', status: 'working', ttlMs: null })) }, { era: 'modern' });
    await expect(other.callTool('job', {}, { task: true })).rejects.toThrow(/another task/);
    const failed = await ToolClient.connect(
      { transport: script(() => ({ taskId: 't-1', status: 'failed', ttlMs: null, error: { code: -32603, message: 'The server restarted' } })) },
      { era: 'modern' },
    );
    const error = await failed.callTool('job', {}, { task: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error).toMatchObject({ code: -32603, taskId: 't-1', message: 'The server restarted' });
  });
});
