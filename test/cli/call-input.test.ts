import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCommand } from '../../src/cli/call.js';
import type { Terminal } from '../../src/cli/prompt.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { buildAskingServer } from '../fixtures/client/asking-tools.js';

// `toolwright call` when the server asks the user something: a terminal answers, anything else declines.

const root = fileURLToPath(new URL('../..', import.meta.url));
const cliCommand = [process.execPath, `${root}dist/cli/main.js`];

let http: HttpServerHandle;
beforeAll(async () => {
  http = await serveHttp(buildAskingServer(), { port: 0 });
});
afterAll(() => http.close());

/** A fake terminal: replies are typed when their prompt appears on the output. */
function fakeTerminal(replies: Array<[RegExp, string]>, tty = true): { terminal: () => Terminal; screen: () => string } {
  const input = Object.assign(new PassThrough(), { isTTY: tty });
  const output = new PassThrough();
  let screen = '';
  let seen = 0;
  output.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    const next = replies[0];
    if (next?.[0].test(screen.slice(seen))) {
      seen = screen.length;
      replies.shift();
      input.write(`${next[1]}\n`);
    }
  });
  return { terminal: () => ({ input, output }), screen: () => screen };
}

async function call(era: string, terminal: () => Terminal, ...operands: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
  const code = await callCommand([http.url, ...operands], [], { era, header: [] }, io, '0.0.0', terminal);
  return { code, stdout, stderr };
}

describe.each(['modern', 'legacy'])('toolwright call, %s era', (era) => {
  it('asks at a terminal before a destructive tool runs', async () => {
    const tty = fakeTerminal([[/Approve this call\? \[y\/N\]: $/, 'y']]);
    const { code, stdout } = await call(era, tty.terminal, 'delete_everything', `tag=cli-${era}-yes`);
    expect(tty.screen()).toMatch(/The server asks: Allow the tool "delete_everything"/);
    expect([code, stdout]).toEqual([0, 'deleted, runs=1\n']);
  });

  it('fills a form field by field and sends it after review', async () => {
    const tty = fakeTerminal([
      [/Color.*: $/, '2'],
      [/litres \(integer\).*: $/, '11'],
      [/Enter at most 10\.\n.*litres.*: $/, '3'],
      [/glossy \[y\/N\] \(optional\): $/, ''],
      [/note \(optional\): $/, ''],
      [/Send these answers\? .*: $/, 'y'],
    ]);
    const { code, stdout } = await call(era, tty.terminal, 'order_paint');
    expect(tty.screen()).toMatch(/1\) Red\n {2}2\) Blue\n/);
    expect([code, stdout]).toEqual([0, 'accept {"color":"#00f","litres":3,"glossy":false}\n']);
  });

  it('declines without a terminal, and says so on stderr', async () => {
    const { code, stderr } = await call(era, fakeTerminal([], false).terminal, 'delete_everything', `tag=cli-${era}-no`);
    expect(code).toBe(3);
    expect(stderr).toMatch(/the server asks:\n {2}Allow the tool "delete_everything"/);
    expect(stderr).toMatch(/declined, because stdin is not a terminal/);
    expect(stderr).toMatch(/did not approve running delete_everything/);
  });
});

it('a form cancelled with Ctrl-D is sent as "cancel"', async () => {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = new PassThrough();
  output.once('data', () => input.end());
  let stdout = '';
  const code = await callCommand(
    [http.url, 'order_paint'],
    [],
    { era: 'auto', header: [] },
    { stdout: (t) => void (stdout += t), stderr: () => {} },
    '0',
    () => ({ input, output }),
  );
  expect([code, stdout]).toEqual([0, 'cancel {}\n']);
});

it('the real CLI with a piped stdin declines, so a destructive tool does not run', async () => {
  const child = spawn(cliCommand[0], [...cliCommand.slice(1), 'call', http.url, 'delete_everything', 'tag=cli-piped'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = await once(child, 'close');
  expect([code, stdout]).toEqual([3, '']);
  expect(stderr).toMatch(/declined, because stdin is not a terminal/);
});
