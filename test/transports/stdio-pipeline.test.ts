import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, killAndReap } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';
import { modernMeta } from '../helpers/wire.js';
import { tsProgram } from '../helpers/ts-program.js';

const fixture = fileURLToPath(new URL('../fixtures/pipeline-server.ts', import.meta.url));
let child: ChildProcessWithoutNullStreams | undefined;
// Runs before the test's temp dir is removed, so the server is gone by then.
afterEach(() => killAndReap(child));

function start() {
  child = spawn(process.execPath, tsProgram(fixture), { env: { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'silent' } });
  const messages: Array<Record<string, any>> = [];
  let buffer = '';
  child.stdout.on('data', (d) => {
    buffer += d;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      messages.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  const send = (msg: unknown) => child!.stdin.write(`${JSON.stringify(msg)}\n`);
  return { send, messages };
}

const until = async (check: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('the call pipeline in a real stdio server', () => {
  it('cancelling a call stops the child process it started, and sends no response', async () => {
    const { send, messages } = start();
    const pidFile = join(tempDir('toolwright-'), 'pid');
    send({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'run_sleep', arguments: { pidFile }, _meta: modernMeta() } });
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isAlive(pid)).toBe(true);
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c', reason: 'user' } });
    await until(() => !isAlive(pid));
    send({ jsonrpc: '2.0', id: 'after', method: 'tools/list', params: { _meta: modernMeta() } });
    await until(() => messages.some((m) => m.id === 'after'));
    expect(messages.some((m) => m.id === 'c')).toBe(false);
  });

  it('a timed-out call answers with an isError result, and its late result never appears', async () => {
    const { send, messages } = start();
    send({ jsonrpc: '2.0', id: 't', method: 'tools/call', params: { name: 'late', arguments: {}, _meta: modernMeta() } });
    await until(() => messages.some((m) => m.id === 't'));
    expect(messages.find((m) => m.id === 't')!.result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/timed out after 100 ms/) }] });
    await new Promise((r) => setTimeout(r, 600));
    expect(messages.filter((m) => m.id === 't')).toHaveLength(1);
    expect(JSON.stringify(messages)).not.toContain('too late');
  });
});
