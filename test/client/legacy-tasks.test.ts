import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolClient, type TaskInfo } from '../../src/client.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { expectAbortCancelsTask } from '../helpers/task-client.js';
import { sharedTempDir } from '../helpers/temp.js';
import { memoryLogger } from '../helpers/wire.js';
import taskTools from '../fixtures/tasks/client-tools.mjs';

// The client following tasks in their 2025-11-25 form (params.task, tasks/get, tasks/result)
// against a real toolwright server over HTTP on 127.0.0.1, in a legacy session.

const textOf = (result: { content: Array<{ type: string; text?: string }> }) => result.content.map((b) => b.text ?? '').join('');

let http: HttpServerHandle;
let server: ToolServer;
let temp: { dir: string; remove: () => void };
beforeAll(async () => {
  temp = sharedTempDir('tw-client-legacy-tasks-');
  server = new ToolServer({ tools: taskTools, audit: false, logger: memoryLogger().logger, tasks: { store: join(temp.dir, 'tasks.db'), pollIntervalMs: 30 } });
  http = await serveHttp(server, { port: 0 });
});
afterAll(async () => {
  await http.close();
  server.close();
  temp.remove();
});

const connect = (options: ConstructorParameters<typeof ToolClient>[1] = {}) =>
  ToolClient.connect({ url: http.url }, { era: 'legacy', timeoutMs: 10_000, ...options });

describe('client: tasks against a 2025-11-25 server (legacy session)', () => {
  it('task: true sends params.task for a tool whose taskSupport allows it; the client polls tasks/get and fetches tasks/result', async () => {
    const client = await connect();
    expect(client.era).toBe('legacy');
    const seen: TaskInfo[] = [];
    const result = await client.callTool('report', { steps: 2, stepMs: 40 }, { task: { onTask: (t) => seen.push(t) } });
    expect(textOf(result)).toBe('report ready: 2 steps');
    expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId: seen[0].taskId });
    expect(seen[0]).toMatchObject({ status: 'working', pollIntervalMs: 30, ttlMs: 3_600_000 });
    expect(seen[0].taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.at(-1)).toMatchObject({ taskId: seen[0].taskId, status: 'completed' });
    await client.close();
  });

  it('a required tool runs as a task; a tool without taskSupport is called directly (no params.task, so no -32601)', async () => {
    const client = await connect();
    const ids: string[] = [];
    expect(textOf(await client.callTool('strict', {}, { task: { onTask: (t) => ids.push(t.taskId) } }))).toBe('strict done');
    expect(ids.length).toBeGreaterThan(0);
    const plain: TaskInfo[] = [];
    expect(textOf(await client.callTool('plain', {}, { task: { onTask: (t) => plain.push(t) } }))).toBe('plain answer');
    expect(plain).toEqual([]);
    // Without the option an optional tool is an ordinary call.
    expect(textOf(await client.callTool('report', { steps: 1, stepMs: 0 }))).toBe('report ready: 1 steps');
    await client.close();
  });

  it('a tool error inside the task reads failed and resolves with the isError result, as the direct call would', async () => {
    const client = await connect();
    const statuses: string[] = [];
    const result = await client.callTool('broken', {}, { task: { onTask: (t) => statuses.push(t.status) } });
    expect(result.isError).toBe(true);
    expect(statuses.at(-1)).toBe('failed');
    await client.close();
  });

  it('an elicitation inside the task: the client sees input_required, calls tasks/result, answers the request it receives there with onInputRequest, and gets the result', async () => {
    const asked: Array<{ method: string; params: Record<string, unknown> }> = [];
    const client = await connect({
      onInputRequest: (request) => {
        asked.push({ method: request.method, params: request.params as Record<string, unknown> });
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    const statuses: string[] = [];
    let taskId = '';
    const result = await client.callTool('ask_name', {}, { task: { onTask: (t) => (statuses.push(t.status), (taskId = t.taskId)) } });
    expect(textOf(result)).toBe('Hello, Ada');
    expect(asked).toHaveLength(1);
    expect(asked[0].method).toBe('elicitation/create');
    expect(asked[0].params._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });
    expect(statuses).toContain('input_required');
    await client.close();
  });

  it('aborting the signal sends tasks/cancel: the task reads cancelled', async () => {
    const client = await connect();
    await expectAbortCancelsTask(client, 'forever');
    await client.close();
  });
});
