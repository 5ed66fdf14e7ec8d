import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cliCommand } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp.js';
import { TerminalSession, TMUX } from '../../helpers/tmux.js';

/**
 * Issue 35: `toolwright connect` answers a server's sampling requests at the terminal (the
 * person writes the model's reply; an empty line rejects) and offers the `--root` folders as
 * its roots, against the reference server-everything, which lists its sampling and roots tools
 * only to a client that declares those capabilities.
 */
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const PROMPT = 'mcp-servers/everything> ';
const SLOW = { timeout: 90_000 };

let term: TerminalSession | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
});

describe.skipIf(!TMUX)('toolwright connect: sampling and roots', () => {
  it('answers a sampling request with the reply typed at the terminal, rejects one left empty, and lists the --root folders', SLOW, async () => {
    const dir = tempDir('toolwright-connect-sampling-');
    term = await TerminalSession.start([...cliCommand, 'connect', '--root', dir, '--root', 'relative/folder', '--', process.execPath, everything, 'stdio'], {
      cwd: dir,
    });
    const t = term;
    await t.next(PROMPT, 30_000);

    await t.line('trigger-sampling-request prompt="name a colour"');
    const asked = await t.next('Reply (an empty line rejects): ');
    expect(asked).toContain('The server asks for a completion (trigger-sampling-request); you answer as the model.');
    expect(asked).toContain('user: Resource trigger-sampling-request context: name a colour');
    expect(asked).toContain('system: You are a helpful test server.');
    await t.line('Ultramarine');
    await t.next('Model [human]: ');
    await t.line('');
    const answered = await t.next(PROMPT);
    expect(answered).toContain('Ultramarine');
    expect(answered).toContain('"model": "human"');

    await t.line('trigger-sampling-request prompt=again');
    await t.next('Reply (an empty line rejects): ');
    await t.line('');
    const rejected = await t.next(PROMPT);
    expect(rejected).toContain('Rejected.');
    expect(rejected).toMatch(/User rejected sampling request/);

    await t.line('get-roots-list');
    const roots = await t.next(PROMPT);
    expect(roots).toContain(pathToFileURL(dir).href);
    expect(roots).toContain(pathToFileURL(`${dir}/relative/folder`).href);
  });
});
