import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool, type Tool } from '../../src/server/tool.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { cliCommand } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp.js';
import { TerminalSession, TMUX } from '../helpers/tmux.js';
import { tsProgram } from '../helpers/ts-program.js';

/** A long call: it reports a quarter done, then waits until the test releases it or the client cancels. */
const slowState = { release: () => {}, cancelled: false };
const slow = defineTool({
  name: 'slow_report',
  description: 'Builds a report slowly.',
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true },
  handler: async (_args, ctx) => {
    ctx.progress(1, 4, 'step 1 of 4: reading sources');
    await new Promise<void>((resolve) => {
      slowState.release = resolve;
      ctx.signal.addEventListener('abort', () => {
        slowState.cancelled = true;
        resolve();
      });
    });
    return 'report ready';
  },
});

let http: HttpServerHandle;
beforeAll(async () => {
  const server = new ToolServer({ name: 'call-terminal', logger: createLogger('silent'), tools: [slow] as Tool[] });
  http = await serveHttp(server, { port: 0 });
});
afterAll(() => http.close());

let term: TerminalSession | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
  slowState.cancelled = false;
});

describe.skipIf(!TMUX)('toolwright call at a terminal', () => {
  it('shows the progress as a bar with its message, and Ctrl-C cancels the call on the server and exits 130', async () => {
    term = await TerminalSession.start([...cliCommand, 'call', http.url, 'slow_report']);
    const screen = await term.waitFor('step 1 of 4: reading sources');
    expect(screen).toMatch(/\[######\.{18}\] {2}25% step 1 of 4: reading sources/);
    await term.press('C-c');
    await term.waitFor('[exited 130]');
    expect(await term.screen()).toContain('toolwright: the call was cancelled (Ctrl-C); the server was told to stop');
    await expect.poll(() => slowState.cancelled, { timeout: 10_000 }).toBe(true);
  });

  it('over stdio, Ctrl-C reaches only the CLI: the server is told to cancel the call, it is not interrupted itself', async () => {
    const dir = tempDir('toolwright-call-stdio-');
    const events = join(dir, 'events.jsonl');
    const server = [process.execPath, ...tsProgram(fileURLToPath(new URL('../fixtures/cli/interactive-server.ts', import.meta.url)))];
    term = await TerminalSession.start([...cliCommand, 'call', 'slow_count', '--', ...server], { cwd: dir, env: { EVENTS_FILE: events } });
    await term.waitFor('25% counted to one', 30_000);
    await term.press('C-c');
    await term.waitFor('[exited 130]');
    // Only a cancellation the server received (not a SIGINT, which would end it at once) records this.
    await expect.poll(() => (existsSync(events) ? readFileSync(events, 'utf8') : ''), { timeout: 10_000 }).toContain('"cancelled":true');
  }, 60_000);

  it('keeps --json output clean: the bar goes to stderr only, and is gone once the result is in', async () => {
    const out = join(tempDir('toolwright-call-json-'), 'out.json');
    term = await TerminalSession.start(['sh', '-c', `"$@" > '${out}'`, 'sh', ...cliCommand, 'call', '--json', http.url, 'slow_report']);
    await term.waitFor('25%');
    slowState.release();
    await term.waitFor('[exited 0]');
    expect(JSON.parse(readFileSync(out, 'utf8')).content).toEqual([{ type: 'text', text: 'report ready' }]);
    // The bar's line was cleared: nothing of it is left on the screen.
    expect(await term.screen()).not.toContain('25%');
  });
});

describe.skipIf(!TMUX)('toolwright list at a terminal', () => {
  it('is coloured on a terminal, and not with NO_COLOR set', async () => {
    term = await TerminalSession.start([...cliCommand, 'list', http.url], { env: { NO_COLOR: undefined, FORCE_COLOR: undefined } });
    await term.waitFor('[exited 0]');
    expect(await term.screen({ escapes: true })).toMatch(/\x1b\[1m.*TOOL/);
    await term.kill();
    term = await TerminalSession.start([...cliCommand, 'list', http.url], { env: { NO_COLOR: '1' } });
    await term.waitFor('[exited 0]');
    const plain = await term.screen({ escapes: true });
    expect(plain).toContain('slow_report');
    expect(plain).not.toMatch(/\x1b\[[0-9;]*m/);
  });
});
