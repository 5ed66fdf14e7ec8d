/**
 * Tasks with the official SDK clients against toolwright.
 * - `@modelcontextprotocol/sdk` 1.x speaks the 2025-11-25 form (`client.experimental.tasks`):
 *   tested here over real HTTP and a real stdio child process, including an elicitation
 *   the tool asks inside its task.
 * - `@modelcontextprotocol/client` 2.x has no tasks support in either form (it lists
 *   `execution.taskSupport` and `capabilities.tasks` among deleted fields and has no
 *   tasks API, nor the io.modelcontextprotocol/tasks extension), so it is not tested here.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import taskTools from '../fixtures/tasks/client-tools.mjs';
import { cliCommand } from '../helpers/serve-process.js';
import { auditEnv, sharedTempDir } from '../helpers/temp.js';
import { memoryLogger } from '../helpers/wire.js';

const fixture = fileURLToPath(new URL('../fixtures/tasks/client-tools.mjs', import.meta.url));

let http: HttpServerHandle;
let server: ToolServer;
let temp: { dir: string; remove: () => void };
beforeAll(async () => {
  temp = sharedTempDir('tw-sdk-tasks-');
  server = new ToolServer({ tools: taskTools, audit: false, logger: memoryLogger().logger, tasks: { store: join(temp.dir, 'tasks.db'), pollIntervalMs: 30 } });
  http = await serveHttp(server, { port: 0 });
});
afterAll(async () => {
  await http?.close();
  server?.close();
  temp?.remove();
});

async function exercise(client: ClientV1) {
  expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
  const { tools } = await client.listTools();
  expect(Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]))).toMatchObject({ report: 'optional', strict: 'required', plain: undefined });

  const seen: string[] = [];
  let result: any;
  for await (const message of client.experimental.tasks.callToolStream({ name: 'report', arguments: { steps: 2, stepMs: 20 } })) {
    seen.push(message.type === 'taskCreated' || message.type === 'taskStatus' ? `${message.type}:${message.task.status}` : message.type);
    if (message.type === 'result') result = message.result;
    if (message.type === 'error') throw message.error;
  }
  expect(seen[0]).toBe('taskCreated:working');
  expect(seen.at(-2)).toBe('taskStatus:completed');
  expect(seen.at(-1)).toBe('result');
  expect(result.content).toEqual([{ type: 'text', text: 'report ready: 2 steps' }]);
  expect(result._meta['io.modelcontextprotocol/related-task'].taskId).toEqual(expect.any(String));

  // A running task, cancelled through the SDK; then listed with the others.
  const stream = client.experimental.tasks.callToolStream({ name: 'forever', arguments: {} });
  const first = await stream.next();
  expect(first.value).toMatchObject({ type: 'taskCreated' });
  const taskId = (first.value as any).task.taskId as string;
  const cancelled = await client.experimental.tasks.cancelTask(taskId);
  expect(cancelled.status).toBe('cancelled');
  await stream.return(undefined);
  expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
  const listed = await client.experimental.tasks.listTasks();
  expect(listed.tasks.map((t) => t.taskId)).toContain(taskId);

  // An elicitation inside a task (tasks.mdx "Task-Augmented Tool Call With Elicitation"): the SDK sees
  // input_required, calls tasks/result, answers the elicitation/create it receives there, and gets the result.
  // Over stdio the request is written at once, so input_required may come and go between two polls:
  // the handler itself reads the task's status while its answer is awaited.
  const asked: any[] = [];
  const statusWhileAsked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    const related = (request.params._meta as any)?.['io.modelcontextprotocol/related-task']?.taskId;
    statusWhileAsked.push((await client.experimental.tasks.getTask(related)).status);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  let answer: any;
  for await (const message of client.experimental.tasks.callToolStream({ name: 'ask_name', arguments: {} })) {
    if (message.type === 'result') answer = message.result;
    if (message.type === 'error') throw message.error;
  }
  expect(statusWhileAsked).toEqual(['input_required']);
  expect(answer.content).toEqual([{ type: 'text', text: 'Hello, Ada' }]);
  const askedTask = answer._meta['io.modelcontextprotocol/related-task'].taskId;
  expect(asked).toHaveLength(1);
  expect(asked[0]).toMatchObject({ message: 'Your name?', _meta: { 'io.modelcontextprotocol/related-task': { taskId: askedTask } } });
  expect((await client.experimental.tasks.getTask(askedTask)).status).toBe('completed');
}

describe('@modelcontextprotocol/sdk 1.x experimental.tasks → toolwright (2025-11-25 form)', () => {
  it('HTTP', async () => {
    const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    await client.connect(new HttpV1(new URL(http.url)));
    try {
      await exercise(client);
    } finally {
      await client.close();
    }
  });

  it('stdio (toolwright serve --stdio as a child process)', async () => {
    const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    await client.connect(
      new StdioV1({
        command: cliCommand[0],
        args: [...cliCommand.slice(1), 'serve', '--stdio', '--tools', fixture],
        cwd: temp.dir,
        env: { PATH: process.env.PATH ?? '', ...auditEnv(), TOOLWRIGHT_AUDIT_DIR: temp.dir },
        stderr: 'ignore',
      }),
    );
    try {
      await exercise(client);
    } finally {
      await client.close();
    }
  }, 30_000);
});
