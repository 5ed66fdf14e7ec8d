import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startHttpServe } from '../../helpers/serve-process.js';
import { tasksRpc as rpc, WITH_TASKS_AND_ELICITATION } from '../../helpers/tasks.js';
import { tempDir } from '../../helpers/temp.js';

const tools = fileURLToPath(new URL('../../fixtures/tasks/gated-tools.mjs', import.meta.url));
const env = { TOOLWRIGHT_AUDIT_DIR: '' };

/** Two `toolwright serve --http` processes in one directory share .toolwright/tasks.db. */
function config(cwd: string, tasks: Record<string, unknown> = {}, server: Record<string, unknown> = {}): void {
  writeFileSync(join(cwd, 'toolwright.config.json'), JSON.stringify({ tools: [tools], server: { audit: false, tasks, ...server } }));
}
const serve = (cwd: string) => startHttpServe(['--config', 'toolwright.config.json'], { cwd, env });
const status = async (url: string, taskId: string) => (await rpc(url, 'tasks/get', { taskId }, taskId)).result;

describe('two servers sharing one task store (real processes)', () => {
  it('a task running on the first stays working when a second server starts and uses the store, and completes', async () => {
    const cwd = tempDir('tw-tasks-shared-');
    config(cwd);
    const first = await serve(cwd);
    const task = (await rpc(first.url, 'tools/call', { name: 'gated', arguments: { label: 'one' } }, 'gated')).result;
    expect(task.resultType).toBe('task');
    await expect.poll(first.stderr, { timeout: 10_000 }).toMatch(/gated one started/);

    const second = await serve(cwd);
    // The second server's first use of the store (it reads the same task), and a task of its own.
    expect((await status(second.url, task.taskId)).status).toBe('working');
    const own = (await rpc(second.url, 'tools/call', { name: 'quick', arguments: {} }, 'quick')).result;
    await expect.poll(async () => (await status(second.url, own.taskId)).status, { timeout: 10_000 }).toBe('completed');

    expect((await status(first.url, task.taskId)).status).toBe('working');
    writeFileSync(join(cwd, 'release'), '');
    await expect.poll(async () => (await status(first.url, task.taskId)).status, { timeout: 10_000 }).toBe('completed');
    expect((await status(first.url, task.taskId)).result.content).toEqual([{ type: 'text', text: 'released one' }]);
    // Both see the one store.
    expect((await status(second.url, task.taskId)).status).toBe('completed');
    expect(first.stderr()).not.toMatch(/marked failed/);
    expect(second.stderr()).not.toMatch(/marked failed/);
  }, 60_000);

  it("a SIGKILLed server's running task reads failed on the other once its lease runs out; the live server's task is left alone", async () => {
    const cwd = tempDir('tw-tasks-shared-');
    config(cwd, { leaseMs: 2_000 });
    const [doomed, survivor] = await Promise.all([serve(cwd), serve(cwd)]);
    // Both open (and create) the store at once: one waits for the other's set-up instead of failing.
    const answers = await Promise.all([
      rpc(doomed.url, 'tools/call', { name: 'gated', arguments: { label: 'lost' } }, 'gated'),
      rpc(survivor.url, 'tools/call', { name: 'gated', arguments: { label: 'kept' } }, 'gated'),
    ]);
    // The whole answers, so that a refusal (an error instead of a task) says why, with what the
    // servers logged of it (an internal error's cause is only in the log: once on CI's Node 26 leg).
    expect(
      answers.map((a) => a.result?.resultType),
      `${JSON.stringify(answers)}\n${loggedErrors(doomed.stderr(), survivor.stderr())}`,
    ).toEqual(['task', 'task']);
    const [lost, kept] = answers.map((a) => a.result);
    await expect.poll(doomed.stderr, { timeout: 10_000 }).toMatch(/gated lost started/);
    await expect.poll(survivor.stderr, { timeout: 10_000 }).toMatch(/gated kept started/);
    expect((await status(survivor.url, lost.taskId)).status).toBe('working');

    doomed.child.kill('SIGKILL');
    expect((await doomed.exit).signal).toBe('SIGKILL');
    // Nobody renews the dead server's lease: the survivor's lease tick fails its task.
    await expect.poll(async () => (await status(survivor.url, lost.taskId)).status, { timeout: 15_000, interval: 100 }).toBe('failed');
    expect((await status(survivor.url, lost.taskId)).error).toMatchObject({ code: -32603, message: expect.stringMatching(/restarted/) });

    expect((await status(survivor.url, kept.taskId)).status).toBe('working');
    writeFileSync(join(cwd, 'release'), '');
    await expect.poll(async () => (await status(survivor.url, kept.taskId)).status, { timeout: 10_000 }).toBe('completed');
  }, 60_000);

  it('a server stopped gracefully (SIGTERM) leaves no task unfinished: the other reads the outcome at once, without waiting for the lease', async () => {
    const cwd = tempDir('tw-tasks-shared-');
    config(cwd, {}, { shutdownGraceMs: 100 });
    const [stopping, other] = await Promise.all([serve(cwd), serve(cwd)]);
    const running = (await rpc(stopping.url, 'tools/call', { name: 'gated', arguments: { label: 'stopped' } }, 'gated')).result;
    const asking = (await rpc(stopping.url, 'tools/call', { name: 'ask_name', arguments: {} }, 'ask_name', WITH_TASKS_AND_ELICITATION)).result;
    await expect.poll(stopping.stderr, { timeout: 10_000 }).toMatch(/gated stopped started/);
    await expect.poll(async () => (await status(other.url, asking.taskId)).status, { timeout: 10_000 }).toBe('input_required');
    expect((await status(other.url, running.taskId)).status).toBe('working');
    stopping.child.kill('SIGTERM');
    expect((await stopping.exit).code).toBe(0);
    // The default 30 s lease has not run out: what the other server reads is what the stopped one wrote.
    // A running call is stopped by the drain (its isError answer is the task's result) ...
    expect(await status(other.url, running.taskId)).toMatchObject({ status: 'completed', result: { isError: true } });
    // ... and a task waiting for input, which nothing will resume, is failed as the store closes.
    expect(await status(other.url, asking.taskId)).toMatchObject({ status: 'failed', error: { code: -32603, message: expect.stringMatching(/restarted/) } });
  }, 60_000);
});

/** The lines of the servers' logs that report an error (at most 4), for an assertion's message. */
function loggedErrors(...logs: string[]): string {
  const lines = logs.flatMap((log) => log.split('\n')).filter((line) => /"level":(50|60)|error|busy|locked/i.test(line));
  return lines.slice(-4).join('\n') || '(the servers logged no error)';
}
