import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../helpers/cli.js';
import { ToolClient } from '../../src/client.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import taskTools from '../fixtures/tasks/client-tools.mjs';
import { cliCommand } from '../helpers/serve-process.js';
import { sharedTempDir } from '../helpers/temp.js';
import { TerminalSession, TMUX } from '../helpers/tmux.js';

// `toolwright call --task` and `toolwright task get|cancel` against a real toolwright server over HTTP.

let http: HttpServerHandle;
let server: ToolServer;
let temp: { dir: string; remove: () => void };
beforeAll(async () => {
  temp = sharedTempDir('tw-cli-tasks-');
  server = new ToolServer({ tools: taskTools, audit: false, logger: createLogger('silent'), tasks: { store: join(temp.dir, 'tasks.db'), pollIntervalMs: 30 } });
  http = await serveHttp(server, { port: 0 });
});
afterAll(async () => {
  await http.close();
  server.close();
  temp.remove();
});

const cli = runCliCaptured;

const taskIdIn = (text: string) => /as task ([0-9a-f-]{36})/.exec(text)?.[1];

describe('toolwright call --task', () => {
  it('runs the call as a task and prints its result; --json stays clean, the task id is said on stderr', async () => {
    const run = await cli('call', http.url, 'report', 'steps=2', 'stepMs=10', '--task', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).content).toEqual([{ type: 'text', text: 'report ready: 2 steps' }]);
    expect(taskIdIn(run.stderr)).toBeDefined();
    // Not a terminal: no status line is drawn.
    expect(run.stderr).not.toMatch(/\r|\x1b/);
  });

  it('without --task the same tool answers directly; a tool that requires tasks says so', async () => {
    const direct = await cli('call', http.url, 'report', 'steps=1', 'stepMs=0');
    expect(direct).toMatchObject({ code: 0, stdout: 'report ready: 1 steps\n' });
    expect(taskIdIn(direct.stderr)).toBeUndefined();
    const refused = await cli('call', http.url, 'strict');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^toolwright: the tool "strict" runs only as a task on this server: add --task to the call \(the server said: .*io\.modelcontextprotocol\/tasks/,
    );
    expect((await cli('call', http.url, 'strict', '--task')).stdout).toBe('strict done\n');
  });

  it('says to add --task when a 2025-11-25 server refuses the call with -32601', async () => {
    const refused = await cli('call', http.url, 'strict', '--era', 'legacy');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^toolwright: the tool "strict" runs only as a task on this server: add --task to the call/);
    expect((await cli('call', http.url, 'strict', '--era', 'legacy', '--task')).stdout).toBe('strict done\n');
  });

  it('a question the task asks is answered the way call answers (declined without a terminal)', async () => {
    const run = await cli('call', http.url, 'ask_name', '--task');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('no name (decline)\n');
  });
});

describe('toolwright task get|cancel', () => {
  it('get shows a finished task and its result (and --json the task); cancel stops a running one', async () => {
    const run = await cli('call', http.url, 'report', 'steps=1', 'stepMs=0', '--task');
    const id = taskIdIn(run.stderr)!;
    const got = await cli('task', 'get', http.url, id);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(new RegExp(`^task ${id}: completed\\n`));
    expect(got.stdout).toContain('report ready: 1 steps');
    const json = JSON.parse((await cli('task', 'get', http.url, id, '--json')).stdout);
    expect(json).toMatchObject({ taskId: id, status: 'completed', result: { content: [{ type: 'text', text: 'report ready: 1 steps' }] } });

    const client = await ToolClient.connect({ url: http.url }, { era: 'modern' });
    let running = '';
    const call = client.callTool('forever', {}, { task: { onTask: (t) => (running ||= t.taskId) } }).catch((e: unknown) => e);
    await expect.poll(() => running, { timeout: 5_000 }).not.toBe('');
    const cancelled = await cli('task', 'cancel', http.url, running);
    expect(cancelled).toMatchObject({ code: 0, stdout: `asked the server to cancel task ${running}; it is now cancelled\n` });
    expect(await call).toMatchObject({ name: 'TaskCancelledError' });
    await client.close();
  });

  it("an unknown task id is the server's not-found error; a missing id is a usage error", async () => {
    const unknown = await cli('task', 'get', http.url, '00000000-0000-4000-8000-000000000000');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Task not found/);
    expect((await cli('task', 'get', http.url)).code).toBe(1);
  });
});

let term: TerminalSession | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
});

describe.skipIf(!TMUX)('toolwright call --task at a terminal', () => {
  it('redraws the task status with its progress message, and Ctrl-C cancels the task on the server (exit 130)', async () => {
    // Long enough (50 × 400 ms) that a slow start on a loaded machine still finds it running.
    term = await TerminalSession.start([...cliCommand, 'call', http.url, 'report', 'steps=50', 'stepMs=400', '--task']);
    const screen = await term.waitFor(/task working: step \d+ of 50/, 40_000);
    const id = taskIdIn(screen)!;
    expect(screen).toContain('(Ctrl-C cancels it)');
    await term.press('C-c');
    await term.waitFor('[exited 130]', 30_000);
    expect(await term.screen()).toContain('the call was cancelled (Ctrl-C); the server was told to stop');
    const client = await ToolClient.connect({ url: http.url }, { era: 'modern' });
    expect((await client.getTask(id)).status).toBe('cancelled');
    await client.close();
  }, 90_000);
});
