import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../../src/server/server.js';
import { defineTool } from '../../../src/server/tool.js';
import { startHttp, readSse } from '../../helpers/http.js';
import { askNameTaskTool, TASKS_EXTENSION, WITH_TASKS_AND_ELICITATION } from '../../helpers/tasks.js';
import { tempDir } from '../../helpers/temp.js';
import { modernMeta, wire } from '../../helpers/wire.js';

const EXT = TASKS_EXTENSION;
const withTasks = WITH_TASKS_AND_ELICITATION;

function tools() {
  return [askNameTaskTool(), defineTool({ name: 'quick', description: 'd', inputSchema: { type: 'object' }, task: 'always', handler: () => 'quick' })];
}

const server = (dir: string) => new ToolServer({ tools: tools(), audit: false, tasks: { store: join(dir, 'tasks.db'), pollIntervalMs: 20 } });

describe('notifications/tasks on subscriptions/listen (SEP-2663 "Task Status Notifications")', () => {
  it('the acknowledgment lists the ids agreed to; the current state follows, then each status change as a full DetailedTask', async () => {
    const w = wire(server(tempDir('tw-task-notes-')));
    const created = (await w.modern('tools/call', { name: 'ask', arguments: {} }, withTasks)).result;
    await expect
      .poll(async () => (await w.modern('tasks/get', { taskId: created.taskId }, withTasks)).result.status, { timeout: 5_000 })
      .toBe('input_required');
    w.send({
      jsonrpc: '2.0',
      id: 'listen-1',
      method: 'subscriptions/listen',
      params: { notifications: { taskIds: [created.taskId, 'no-such-task'], toolsListChanged: true }, _meta: modernMeta(withTasks) },
    });
    const notes = () => w.written.filter((m) => m.method === 'notifications/tasks');
    await expect.poll(() => notes().length, { timeout: 5_000 }).toBe(1);
    const ack = w.written.find((m) => m.method === 'notifications/subscriptions/acknowledged')!;
    expect(ack.params.notifications).toEqual({ toolsListChanged: true, taskIds: [created.taskId] });
    expect(w.written.indexOf(ack)).toBeLessThan(w.written.indexOf(notes()[0]));
    expect(notes()[0].params).toMatchObject({
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' },
      taskId: created.taskId,
      status: 'input_required',
      inputRequests: { name: { method: 'elicitation/create' } },
    });

    await w.modern('tasks/update', { taskId: created.taskId, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } }, withTasks);
    await expect.poll(() => notes().at(-1)?.params.status, { timeout: 5_000 }).toBe('completed');
    expect(notes().map((n) => n.params.status)).toEqual(['input_required', 'working', 'completed']);
    expect(notes().at(-1)!.params.result.content).toEqual([{ type: 'text', text: 'Hello, Ada' }]);
    for (const n of notes()) expect(n.params).not.toHaveProperty('resultType');
  });

  it('a client that did not declare the extension is -32021; a malformed taskIds is -32602', async () => {
    const w = wire(server(tempDir('tw-task-notes-')));
    const refused = await w.request('subscriptions/listen', { notifications: { taskIds: ['x'] }, _meta: modernMeta() });
    expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [EXT]: {} } } } });
    const bad = await w.request('subscriptions/listen', { notifications: { taskIds: 'x' }, _meta: modernMeta(withTasks) });
    expect(bad.error.code).toBe(-32602);
    const many = await w.request('subscriptions/listen', {
      notifications: { taskIds: Array.from({ length: 101 }, (_, i) => `t${i}`) },
      _meta: modernMeta(withTasks),
    });
    expect(many.error.code).toBe(-32602);
  });

  it("over HTTP, another principal's task is left out of the acknowledgment and never notified", async () => {
    const http = await startHttp(server(tempDir('tw-task-notes-')), {
      authenticate: (req) => (typeof req.headers['x-user'] === 'string' ? req.headers['x-user'] : undefined),
    });
    try {
      const created = await (await http.modern('tools/call', { name: 'quick', arguments: {} }, { 'x-user': 'alice' }, withTasks)).json();
      const taskId = created.result.taskId as string;
      const listen = (user: string) => http.modern('subscriptions/listen', { notifications: { taskIds: [taskId] } }, { 'x-user': user }, withTasks);
      const bob = await readSse(await listen('mallory'), (m) => m.some((x) => x.method === 'notifications/subscriptions/acknowledged'));
      expect(bob.find((m) => m.method === 'notifications/subscriptions/acknowledged')!.params.notifications.taskIds).toEqual([]);
      const alice = await readSse(await listen('alice'), (m) => m.some((x) => x.method === 'notifications/tasks'));
      expect(alice.find((m) => m.method === 'notifications/tasks')!.params).toMatchObject({ taskId, status: expect.stringMatching(/working|completed/) });
    } finally {
      await http.close();
    }
  });
});
