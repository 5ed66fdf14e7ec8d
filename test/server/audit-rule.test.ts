import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryAuditSink } from '../../src/audit/memory-sink.js';
import { defineResource } from '../../src/server/primitives/resources/index.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool, type ToolContext } from '../../src/server/tool.js';
import { abortableSleep, askNameTaskTool, WITH_TASKS_AND_ELICITATION } from '../helpers/tasks.js';
import { tempDir } from '../helpers/temp.js';
import { wire } from '../helpers/wire.js';

/**
 * One audit rule (issue 31): every request that changes state or runs user code leaves exactly
 * one record — task answers and cancellations, subscriptions and the log level included — and
 * requests that only read (lists, tasks/get, ping) leave none.
 */
function auditedServer() {
  const audit = new MemoryAuditSink();
  const slow = defineTool({
    name: 'slow',
    description: 'd',
    inputSchema: { type: 'object' },
    task: 'always',
    handler: async (_args, ctx: ToolContext) => {
      await abortableSleep(60_000, ctx.signal);
      return 'late';
    },
  });
  const server = new ToolServer({
    tools: [slow, askNameTaskTool()],
    resources: [defineResource({ uri: 'docs://a', name: 'a', read: () => 'A' })],
    audit,
    tasks: { store: join(tempDir('tw-audit-rule-'), 'tasks.db'), pollIntervalMs: 20 },
  });
  return { server, audit };
}

const recorded = (audit: MemoryAuditSink) => audit.records.map((r) => [r.method ?? 'tools/call', r.tool, r.status]);

describe('the audit rule', () => {
  it('records each modern task answer and cancellation once, and nothing for tasks/get', async () => {
    const { server, audit } = auditedServer();
    const w = wire(server);
    const meta = WITH_TASKS_AND_ELICITATION;
    const asked = (await w.modern('tools/call', { name: 'ask', arguments: {} }, meta)).result.taskId;
    await expect
      .poll(async () => (await w.modern('tasks/get', { taskId: asked }, meta)).result.status, { timeout: 5_000, interval: 20 })
      .toBe('input_required');
    await w.modern('tasks/update', { taskId: asked, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } }, meta);
    const slow = (await w.modern('tools/call', { name: 'slow', arguments: {} }, meta)).result.taskId;
    await w.modern('tasks/cancel', { taskId: slow }, meta);
    expect((await w.modern('tasks/cancel', { taskId: 'no-such-task' }, meta)).error.code).toBe(-32602);
    await server.drain(2_000);
    const others = recorded(audit).filter(([method]) => method !== 'tools/call');
    expect(others).toEqual([
      ['tasks/update', asked, 'ok'],
      ['tasks/cancel', slow, 'ok'],
      ['tasks/cancel', 'no-such-task', 'protocol_error'],
    ]);
    server.close();
  });

  it('records legacy subscribe, unsubscribe, logging/setLevel and tasks/cancel once each, and nothing for ping or lists', async () => {
    const { server, audit } = auditedServer();
    const w = wire(server);
    await w.initialize('2025-11-25');
    await w.request('ping');
    await w.request('tools/list');
    await w.request('resources/subscribe', { uri: 'docs://a' });
    await w.request('resources/unsubscribe', { uri: 'docs://a' });
    await w.request('logging/setLevel', { level: 'debug' });
    const { taskId } = (await w.request('tools/call', { name: 'slow', arguments: {}, task: {} })).result.task;
    await w.request('tasks/cancel', { taskId });
    await server.drain(2_000);
    expect(recorded(audit).filter(([method]) => method !== 'tools/call')).toEqual([
      ['resources/subscribe', 'docs://a', 'ok'],
      ['resources/unsubscribe', 'docs://a', 'ok'],
      ['logging/setLevel', 'debug', 'ok'],
      ['tasks/cancel', taskId, 'ok'],
    ]);
    server.close();
  });

  it('records a modern subscriptions/listen stream once, when it ends, without holding a shutdown', async () => {
    const { server, audit } = auditedServer();
    const w = wire(server);
    const listening = w.modern('subscriptions/listen', { notifications: { toolsListChanged: true } });
    await expect.poll(() => w.written.length, { timeout: 5_000, interval: 10 }).toBeGreaterThan(0);
    expect(audit.records).toEqual([]);
    // A drain does not wait for open streams: they are ended by close().
    expect(await Promise.race([server.drain(5_000).then(() => 'drained'), new Promise((r) => setTimeout(() => r('held'), 2_000))])).toBe('drained');
    server.close();
    await listening;
    await expect.poll(() => recorded(audit), { timeout: 5_000, interval: 10 }).toEqual([['subscriptions/listen', 'toolsListChanged', 'ok']]);
  });
});
