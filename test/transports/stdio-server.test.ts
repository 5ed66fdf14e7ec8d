import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { modernMeta } from '../helpers/wire.js';
import { tsProgram } from '../helpers/ts-program.js';

const fixture = fileURLToPath(new URL('../fixtures/stdio-server.ts', import.meta.url));
let child: ChildProcessWithoutNullStreams | undefined;
afterEach(() => child?.kill('SIGKILL'));

function start(env: Record<string, string> = {}) {
  child = spawn(process.execPath, tsProgram(fixture), { env: { ...process.env, ...env, TOOLWRIGHT_LOG_LEVEL: 'warn' } });
  const lines: string[] = [];
  let buffer = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stdout.on('data', (d) => {
    buffer += d;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      lines.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      for (const w of waiters.splice(0)) w();
    }
  });
  const stderrWaiters: Array<() => void> = [];
  child.stderr.on('data', (d) => {
    stderr += d;
    for (const w of stderrWaiters.splice(0)) w();
  });
  const send = (msg: unknown) => child!.stdin.write(`${typeof msg === 'string' ? msg : JSON.stringify(msg)}\n`);
  const next = async (count: number) => {
    while (lines.length < count) await new Promise<void>((r) => waiters.push(r));
    return lines.slice(0, count).map((l) => JSON.parse(l));
  };
  // stdout and stderr are separate pipes: what the child wrote to stderr before a reply may reach us after it.
  const stderrContaining = async (text: string) => {
    while (!stderr.includes(text)) await new Promise<void>((r) => stderrWaiters.push(r));
    return stderr;
  };
  return { child, send, next, lines, stderr: () => stderr, stderrContaining };
}

describe('stdio server (child process)', () => {
  it('answers both eras on one process, with only protocol messages on stdout', async () => {
    const s = start();
    s.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'modern' }, _meta: modernMeta() } });
    s.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'legacy' } } });
    const replies = await s.next(3);
    const byId = Object.fromEntries(replies.map((r) => [r.id, r]));
    expect(byId[1].result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'modern' }] });
    expect(byId[2].result.protocolVersion).toBe('2025-06-18');
    expect(byId[3].result).toEqual({ content: [{ type: 'text', text: 'legacy' }] });
    expect(s.lines.every((l) => JSON.parse(l).jsonrpc === '2.0')).toBe(true);
    expect(await s.stderrContaining('a careless debug print')).toContain('a careless debug print');
  });

  it('refuses a line over the limit with a clear error and keeps serving', async () => {
    const s = start({ MAX_LINE_BYTES: '1024' });
    s.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(4096) }, _meta: modernMeta() } }),
    );
    s.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: modernMeta() } });
    const [tooLong, list] = await s.next(2);
    expect(tooLong.error).toEqual({ code: -32600, message: 'Invalid Request: message exceeds the 1024-byte limit and was discarded' });
    expect(list.id).toBe(2);
  });

  it('stops a cancelled call without answering it', async () => {
    const s = start();
    s.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'sleep', arguments: {}, _meta: modernMeta() } });
    await new Promise((r) => setTimeout(r, 100));
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow' } });
    s.send({ jsonrpc: '2.0', id: 'after', method: 'tools/list', params: { _meta: modernMeta() } });
    const [first] = await s.next(1);
    expect(first.id).toBe('after');
    await new Promise((r) => setTimeout(r, 100));
    expect(s.lines).toHaveLength(1);
  });

  it('answers what was asked and exits when stdin closes', async () => {
    const s = start();
    s.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } });
    s.child.stdin.end();
    const [code] = await once(s.child, 'exit');
    expect(code).toBe(0);
    expect(JSON.parse(s.lines[0]).result.tools).toHaveLength(2);
  });
});
