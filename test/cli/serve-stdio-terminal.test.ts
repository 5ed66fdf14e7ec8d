import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cliCommand, startStdioServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp.js';
import { TerminalSession, TMUX } from '../helpers/tmux.js';

const demoTools = fileURLToPath(new URL('../fixtures/cli/demo-tools.ts', import.meta.url));

let term: TerminalSession | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
});

describe('serve --stdio started at a terminal', () => {
  it('tmux is installed where CI runs the tests (the terminal tests do not skip there)', () => {
    if (process.env.CI === 'true') expect(TMUX, 'tmux must be installed under CI (.ci/run installs it)').toBeDefined();
  });

  it.skipIf(!TMUX)('says on stderr what it serves and how to stop it, and stops on Ctrl-C', async () => {
    term = await TerminalSession.start([...cliCommand, 'serve', '--stdio', '--tools', demoTools], { cwd: tempDir('toolwright-stdio-tty-') });
    await term.waitFor('toolwright: serving 3 tool(s) over stdio: an MCP client speaks JSON-RPC on stdin/stdout (press Ctrl-C to stop)');
    await term.press('C-c');
    await term.waitFor('[exited 0]');
  });

  it('says nothing of the kind when a client started it (stdin is a pipe)', async () => {
    const serve = startStdioServe(['--tools', demoTools], { cwd: tempDir('toolwright-stdio-pipe-') });
    const answer = await serve.call('echo', { text: 'hi' });
    expect(answer.result.content[0].text).toBe('hi');
    expect(serve.stderr()).not.toContain('over stdio');
  });
});
