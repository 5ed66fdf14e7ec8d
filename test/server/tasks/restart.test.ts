import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startHttpServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp.js';
import { MODERN, modernMeta } from '../../helpers/wire.js';

const tools = fileURLToPath(new URL('../../fixtures/tasks/restart-tools.mjs', import.meta.url));
const withTasks = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

async function rpc(url: string, method: string, params: Record<string, unknown>, name: string): Promise<Record<string, any>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': method, 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: modernMeta(withTasks) } }),
  });
  return (await res.json()) as Record<string, any>;
}

describe('tasks across a server restart (SQLite store, real process, SIGKILL)', () => {
  it("a finished task's result survives the kill; a task that was running reads failed", async () => {
    const cwd = tempDir('tw-tasks-restart-');
    const first = await startHttpServe(['--tools', tools], { cwd, env: { TOOLWRIGHT_AUDIT_DIR: '' } });
    const quick = (await rpc(first.url, 'tools/call', { name: 'quick', arguments: {} }, 'quick')).result;
    expect(quick.resultType).toBe('task');
    await expect.poll(async () => (await rpc(first.url, 'tasks/get', { taskId: quick.taskId }, quick.taskId)).result.status, { timeout: 10_000 }).toBe('completed');
    const forever = (await rpc(first.url, 'tools/call', { name: 'forever', arguments: {} }, 'forever')).result;
    await expect.poll(first.stderr, { timeout: 10_000 }).toMatch(/forever started/);
    expect((await rpc(first.url, 'tasks/get', { taskId: forever.taskId }, forever.taskId)).result.status).toBe('working');

    first.child.kill('SIGKILL');
    expect((await first.exit).signal).toBe('SIGKILL');

    const second = await startHttpServe(['--tools', tools], { cwd, env: { TOOLWRIGHT_AUDIT_DIR: '' } });
    const kept = (await rpc(second.url, 'tasks/get', { taskId: quick.taskId }, quick.taskId)).result;
    expect(kept).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'quick result' }] } });
    const lost = (await rpc(second.url, 'tasks/get', { taskId: forever.taskId }, forever.taskId)).result;
    expect(lost.status).toBe('failed');
    expect(lost.error).toMatchObject({ code: -32603, message: expect.stringMatching(/restarted/) });
    expect(lost).not.toHaveProperty('result');
  }, 60_000);
});
