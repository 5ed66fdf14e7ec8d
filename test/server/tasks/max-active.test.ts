import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ToolServer } from '../../../src/server/server.js';
import { defineTool, type ToolContext } from '../../../src/server/tool.js';
import { startStdioServe } from '../../helpers/serve-process.js';
import { WITH_TASKS } from '../../helpers/tasks.js';
import { tempDir } from '../../helpers/temp.js';
import { modernMeta, wire } from '../../helpers/wire.js';

const gatedTools = fileURLToPath(new URL('../../fixtures/tasks/gated-tools.mjs', import.meta.url));

/** A task tool that runs until `open()`; counts how many calls reached it (as tasks or directly). */
function gate(task: 'always' | { afterMs: number }) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const state = { started: 0, open };
  const tool = defineTool({
    name: 'gated',
    description: 'd',
    inputSchema: { type: 'object' },
    task,
    handler: async (_args, ctx: ToolContext) => {
      state.started++;
      await Promise.race([opened, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))]);
      return 'released';
    },
  });
  return { tool, state };
}

function server(tool: ReturnType<typeof gate>['tool'], maxActive: number) {
  return new ToolServer({
    tools: [tool],
    audit: false,
    limits: { maxInFlight: 512, maxQueued: 512 },
    tasks: { store: join(tempDir('tw-tasks-max-'), 'tasks.db'), maxActive },
  });
}

describe('tasks maxActive: the cap holds for calls arriving together', () => {
  it('200 concurrent modern calls with maxActive 50: exactly 50 tasks, 150 answered directly', async () => {
    const { tool, state } = gate('always');
    const w = wire(server(tool, 50));
    // All sent before any is answered: every admission check runs while earlier calls are still awaiting the store.
    const answers = Array.from({ length: 200 }, () => w.modern('tools/call', { name: 'gated', arguments: {} }, WITH_TASKS));
    await expect.poll(() => state.started, { timeout: 15_000 }).toBe(200);
    state.open();
    const results = (await Promise.all(answers)).map((a) => a.result);
    expect(results.filter((r) => r.resultType === 'task')).toHaveLength(50);
    expect(results.filter((r) => r.resultType === 'complete' && r.content[0].text === 'released')).toHaveLength(150);
  });

  it('200 concurrent 2025-11-25 task calls with maxActive 50: exactly 50 handles, 150 refused with -32603', async () => {
    const { tool, state } = gate('always');
    const w = wire(server(tool, 50));
    await w.initialize('2025-11-25');
    const answers = await Promise.all(Array.from({ length: 200 }, () => w.request('tools/call', { name: 'gated', arguments: {}, task: {} })));
    expect(answers.filter((a) => a.result?.task?.status === 'working')).toHaveLength(50);
    expect(answers.filter((a) => a.error?.code === -32603 && /Too many tasks/.test(a.error.message))).toHaveLength(150);
    state.open();
  });

  it('{ afterMs }: a call that would become a task while every slot is taken stays an ordinary call and answers directly', async () => {
    const { tool, state } = gate({ afterMs: 50 });
    const w = wire(server(tool, 1));
    const both = [w.modern('tools/call', { name: 'gated', arguments: {} }, WITH_TASKS), w.modern('tools/call', { name: 'gated', arguments: {} }, WITH_TASKS)];
    const first = await Promise.race(both);
    expect(first.result.resultType).toBe('task');
    // Both calls' afterMs ran out together: the other one has reached its decision before the next turn of the loop.
    await new Promise((resolve) => setImmediate(resolve));
    state.open();
    const results = (await Promise.all(both)).map((a) => a.result.resultType).sort();
    expect(results).toEqual(['complete', 'task']);
  });
});

describe('tasks maxActive over stdio (real process)', () => {
  it('200 pipelined calls with maxActive 50 make exactly 50 tasks; the rest are answered directly', async () => {
    const cwd = tempDir('tw-tasks-max-');
    writeFileSync(
      join(cwd, 'toolwright.config.json'),
      JSON.stringify({ tools: [gatedTools], server: { audit: false, limits: { maxInFlight: 512, maxQueued: 512 }, tasks: { maxActive: 50 } } }),
    );
    const serve = startStdioServe(['--config', 'toolwright.config.json'], { cwd, env: { TOOLWRIGHT_AUDIT_DIR: '' } });
    const lines = Array.from({ length: 200 }, (_, i) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: { name: 'gated', arguments: { label: `c${i}` }, _meta: modernMeta(WITH_TASKS) },
      }),
    );
    // One write: the calls arrive together, as a pipelining client sends them.
    serve.child.stdin.write(`${lines.join('\n')}\n`);
    // Every call has been admitted or refused once each one's handler is running.
    await expect.poll(() => serve.stderr().match(/gated c\d+ started/g)?.length ?? 0, { timeout: 30_000 }).toBe(200);
    writeFileSync(join(cwd, 'release'), '');
    await expect.poll(() => serve.answers.filter((m) => typeof m.id === 'number').length, { timeout: 30_000 }).toBe(200);
    const results = serve.answers.filter((m) => typeof m.id === 'number').map((m) => m.result);
    expect(results.filter((r) => r.resultType === 'task')).toHaveLength(50);
    expect(results.filter((r) => r.resultType === 'complete' && /released c\d+/.test(r.content[0].text))).toHaveLength(150);
  }, 90_000);
});
