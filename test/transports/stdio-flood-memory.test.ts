import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { killAndReap } from '../helpers/process.js';
import { modernMeta } from '../helpers/wire.js';
import { tsProgram } from '../helpers/ts-program.js';

const fixture = fileURLToPath(new URL('../fixtures/stdio-server.ts', import.meta.url));
let child: ChildProcessWithoutNullStreams | undefined;
afterEach(() => killAndReap(child));

/** Peak resident memory of a process so far, in MiB (Linux). */
const peakMiB = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const MiB = 1024 * 1024;

describe('stdio server under a flood (child process)', () => {
  it.runIf(process.platform === 'linux')('holds neither an over-limit line nor a deeply nested message in memory, and answers afterwards', async () => {
    child = spawn(process.execPath, tsProgram(fixture), { env: { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'warn', MAX_LINE_BYTES: String(4 * MiB) } });
    const c = child;
    const lines: Array<Record<string, any>> = [];
    let buffer = '';
    c.stdout.on('data', (d) => {
      buffer += d;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        lines.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
    });
    const until = async (count: number) => {
      const deadline = Date.now() + 15_000;
      while (lines.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(lines.length).toBeGreaterThanOrEqual(count);
    };
    const write = (data: string | Buffer) => (c.stdin.write(data) ? undefined : new Promise<void>((r) => c.stdin.once('drain', () => r())));
    const call = (id: number) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `call ${id}` }, _meta: modernMeta() } })}\n`;

    await write(call(1));
    await until(1);
    const before = peakMiB(c.pid!);

    // A 128 MiB line (32 times the limit), sent as fast as the pipe takes it.
    const block = Buffer.alloc(MiB, 0x61);
    for (let i = 0; i < 128; i++) await write(block);
    await write('\n');
    // Nesting within the size limit: 1.5 million levels in 3 MiB.
    const depth = 1_500_000;
    await write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":${'['.repeat(depth)}${']'.repeat(depth)}}}}\n`);
    await write(call(3));
    await until(4);

    expect(lines[1].error.message).toMatch(/exceeds the 4194304-byte limit/);
    expect(lines[2]).toMatchObject({ error: { code: -32700, message: expect.stringMatching(/deeper than/) } });
    expect(lines[3]).toMatchObject({ id: 3, result: { content: [{ text: 'call 3' }] } });
    // Refused input is dropped as it arrives: what remains is the garbage of reads not yet
    // collected, far below the 128 MiB line, or the ~150 MiB a parsed 1.5-million-level message
    // costs. How much garbage V8 lets pile up before a collection depends on its version: ~37 MiB
    // under Node 20, ~53 MiB (at times 56) under Node 26, steady over runs. The bound sits between
    // that and the smallest thing a defect would hold (the line itself).
    const growth = peakMiB(c.pid!) - before;
    expect(growth).toBeLessThan(80);
  });
});
