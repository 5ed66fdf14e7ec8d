import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { modernMeta } from '../../helpers/wire.js';
import { execServer, isAlive, readPids, tempRoot, waitFor } from './helpers.js';

/**
 * /bin/sh is allow-listed here only as the target of an argv, to build a
 * process tree: the script records its own pid and the pids of two
 * background grandchildren, then waits. Every one of them must be dead after
 * a cancel, a timeout, or the command's own exit.
 */
const TREE = 'echo $$ > pids; /bin/sleep 30 & echo $! >> pids; /bin/sleep 30 & echo $! >> pids; wait';
const LEAVE_BEHIND = '/bin/sleep 30 & echo $! > pids; echo started';

let root: Awaited<ReturnType<typeof tempRoot>>;
beforeEach(async () => {
  root = await tempRoot();
});
afterEach(async () => {
  await root.cleanup();
});

function server(timeoutMs = 20_000) {
  return execServer({
    root: root.dir,
    commands: { sh: { path: '/bin/sh', positional: ['-c'], args: ['.*'], timeoutMs } },
  });
}

const allDead = (pids: number[]) => (pids.every((p) => !isAlive(p)) ? true : undefined);

describe('execute_command kills the whole process group', () => {
  it('on cancel: the shell and both grandchildren die, and no response is sent', async () => {
    const s = server();
    const answer = s.request('tools/call', { name: 'execute_command', arguments: { command: 'sh', args: ['-c', TREE] }, _meta: modernMeta() }, 'tree');
    const pids = await waitFor(() => readPids(join(root.dir, 'pids'), 3), 5000, 'the script to record its pids');
    expect(pids.every(isAlive)).toBe(true);
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'tree', reason: 'test' } });
    await waitFor(() => allDead(pids), 5000, 'every process of the group to die');
    let answered = false;
    void answer.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(false);
  });

  it('on timeout: an isError result with the output so far, and every process dead', async () => {
    const s = server(500);
    const result = await s.call({ command: 'sh', args: ['-c', `echo before; ${TREE}`] });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('did not finish within 0.5 s');
    expect(result.content[0].text).toContain('every process it started were killed');
    expect(result.structuredContent).toMatchObject({ timedOut: true, signal: 'SIGKILL', exitCode: null, stdout: 'before\n' });
    const pids = readPids(join(root.dir, 'pids'), 3)!;
    expect(pids).toHaveLength(3);
    await waitFor(() => allDead(pids), 5000, 'every process of the group to die');
  });

  it('when the command exits: background children it left behind are killed, and the call does not wait for them', async () => {
    const s = server();
    const result = await s.call({ command: 'sh', args: ['-c', LEAVE_BEHIND] });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ exitCode: 0, stdout: 'started\n' });
    const [pid] = readPids(join(root.dir, 'pids'), 1)!;
    await waitFor(() => allDead([pid]), 5000, 'the background sleep to die');
  });
});
