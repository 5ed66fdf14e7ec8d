/**
 * Tasks of task-capable upstream tools: offered as task-capable through the gateway, and run as a
 * task upstream (the gateway's own task follows it to its result).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mount } from '../../src/gateway/index.js';
import { TASKS_EXTENSION } from '../../src/protocol/extensions.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool } from '../../src/server/tool.js';
import { createInMemoryPair } from '../../src/testing.js';
import { memoryLogger } from '../helpers/wire.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('tasks through the gateway', () => {
  it("a plain call's result keeps its _meta but not an upstream task id the upstream put there", async () => {
    const upstream = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
    upstream.addTool(
      defineTool({
        name: 'tags',
        description: 'names a task of its own in its result',
        inputSchema: { type: 'object' },
        handler: () => ({
          content: [{ type: 'text', text: 'ok' }],
          _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'upstream-task-7' }, 'example.com/kept': 1 },
        }),
      }),
    );
    const gateway = new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
    const handle = mount(gateway, 'up', { server: upstream });
    closers.push(() => handle.close());
    await handle.ready;
    const { client, close } = await createInMemoryPair(gateway);
    closers.push(close);
    const result = await client.callTool('up_tags', {});
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(result._meta?.['example.com/kept']).toBe(1);
    expect(JSON.stringify(result)).not.toContain('upstream-task-7');
  });

  it('a tool marked task-capable is a task for the client and runs as a task upstream', async () => {
    const upstream = new ToolServer({ audit: false, logger: memoryLogger().logger });
    upstream.addTool(
      defineTool({ name: 'slow', description: 'takes a while', inputSchema: { type: 'object' }, task: 'always', handler: async () => 'done slowly' }),
      defineTool({ name: 'quick', description: 'answers at once', inputSchema: { type: 'object' }, handler: () => 'done' }),
    );
    const upstreamResults: string[] = [];
    // What the gateway's request to the upstream declared: the tasks extension lets the upstream answer with a task.
    upstream.use('tools/call', async (ctx, next) => {
      const caps = ctx.meta?.['io.modelcontextprotocol/clientCapabilities'] as { extensions?: Record<string, unknown> } | undefined;
      upstreamResults.push(`${(ctx.params as { name: string }).name}:${caps?.extensions?.[TASKS_EXTENSION] ? 'task' : 'call'}`);
      return next();
    });
    const server = new ToolServer({ audit: false, logger: memoryLogger().logger });
    const handle = mount(server, 'up', { server: upstream }, { tools: { slow: { task: 'always' } } });
    closers.push(() => handle.close());
    await handle.ready;
    expect(server.tools.get('up_slow')?.tool.task).toBe('always');
    expect(server.tools.get('up_quick')?.tool.task).toBeUndefined();

    const { client, close } = await createInMemoryPair(server, { era: 'modern' });
    closers.push(close);
    const tasks: string[] = [];
    const result = await client.callTool('up_slow', {}, { task: { onTask: (t) => tasks.push(t.taskId) } });
    expect(result.content).toEqual([{ type: 'text', text: 'done slowly' }]);
    expect(new Set(tasks).size).toBe(1); // the gateway answered with a task of its own
    expect(upstreamResults).toContain('slow:task'); // and asked the upstream to run it as a task (its mode 'always' makes one)
    expect((await client.callTool('up_quick', {})).content).toEqual([{ type: 'text', text: 'done' }]);
    expect(upstreamResults).toContain('quick:call');
  });
});
