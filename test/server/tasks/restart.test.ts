import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startHttpServe } from '../../helpers/serve-process.js';
import { tasksRpc as rpc } from '../../helpers/tasks.js';
import { tempDir } from '../../helpers/temp.js';

const tools = fileURLToPath(new URL('../../fixtures/tasks/restart-tools.mjs', import.meta.url));

describe('tasks across a server restart (SQLite store, real process, SIGKILL)', () => {
  it("a finished task's result survives the kill; a task that was running reads failed once the dead server's lease runs out", async () => {
    const cwd = tempDir('tw-tasks-restart-');
    // A short lease: the killed server's claim on its running task ends a second after its last renewal.
    writeFileSync(join(cwd, 'toolwright.config.json'), JSON.stringify({ tools: [tools], server: { audit: false, tasks: { leaseMs: 1_000 } } }));
    const first = await startHttpServe(['--config', 'toolwright.config.json'], { cwd, env: { TOOLWRIGHT_AUDIT_DIR: '' } });
    const quick = (await rpc(first.url, 'tools/call', { name: 'quick', arguments: {} }, 'quick')).result;
    expect(quick.resultType).toBe('task');
    await expect
      .poll(async () => (await rpc(first.url, 'tasks/get', { taskId: quick.taskId }, quick.taskId)).result.status, { timeout: 10_000 })
      .toBe('completed');
    const forever = (await rpc(first.url, 'tools/call', { name: 'forever', arguments: {} }, 'forever')).result;
    await expect.poll(first.stderr, { timeout: 10_000 }).toMatch(/forever started/);
    expect((await rpc(first.url, 'tasks/get', { taskId: forever.taskId }, forever.taskId)).result.status).toBe('working');

    first.child.kill('SIGKILL');
    expect((await first.exit).signal).toBe('SIGKILL');

    const second = await startHttpServe(['--config', 'toolwright.config.json'], { cwd, env: { TOOLWRIGHT_AUDIT_DIR: '' } });
    const kept = (await rpc(second.url, 'tasks/get', { taskId: quick.taskId }, quick.taskId)).result;
    expect(kept).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'quick result' }] } });
    // Failed by the second server at start-up or on a lease tick, whichever comes after the lease ran out.
    await expect
      .poll(async () => (await rpc(second.url, 'tasks/get', { taskId: forever.taskId }, forever.taskId)).result.status, { timeout: 15_000, interval: 100 })
      .toBe('failed');
    const lost = (await rpc(second.url, 'tasks/get', { taskId: forever.taskId }, forever.taskId)).result;
    expect(lost.error).toMatchObject({ code: -32603, message: expect.stringMatching(/restarted/) });
    expect(lost).not.toHaveProperty('result');
  }, 60_000);
});
