import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/program.js';
import { serveHttp } from '../../../src/transports/http-server.js';
import { interactiveServer } from '../../fixtures/cli/interactive-server.js';
import { cliCommand } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp.js';
import { TerminalSession, TMUX } from '../../helpers/tmux.js';
import { tsProgram } from '../../helpers/ts-program.js';

/**
 * `toolwright connect`, driven the way a person uses it: in a real
 * pseudo-terminal (tmux), keys sent with send-keys, the screen read with
 * capture-pane, against a real toolwright server (a stdio child, or HTTP on
 * 127.0.0.1).
 */
const fixture = fileURLToPath(new URL('../../fixtures/cli/interactive-server.ts', import.meta.url));
const stdioServer = [process.execPath, ...tsProgram(fixture)];
const PROMPT = 'playground> ';
const SLOW = { timeout: 90_000 };

let term: TerminalSession | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
});

/** Starts `toolwright connect` in tmux; resolves at the first prompt. Events the server records land in the returned file. */
async function connect(target: string[], env: Record<string, string> = {}) {
  const dir = tempDir('toolwright-connect-test-');
  const events = join(dir, 'events.jsonl');
  term = await TerminalSession.start([...cliCommand, 'connect', '--output-dir', join(dir, 'out'), ...target], {
    cwd: dir,
    env: { EVENTS_FILE: events, ...env },
  });
  await term.next(PROMPT, 30_000);
  const read = () =>
    existsSync(events)
      ? readFileSync(events, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  return { term, dir, events: read };
}

describe.skipIf(!TMUX)('toolwright connect (a real terminal)', () => {
  it(
    'completes tool and argument names with Tab, asks arguments field by field with inline validation, shows the result as a tree, keeps a history',
    SLOW,
    async () => {
      const { term: t } = await connect(['--', ...stdioServer]);
      expect(await t.screen()).toContain('Connected to playground 1.2.3 over stdio (modern, protocol 2026-07-28): 8 tools.');
      // Tab completes a tool name…
      await t.type('ad');
      await t.tab();
      await t.waitFor(/playground> add/);
      await t.type(' ');
      // …and, after it, its argument names (both offered).
      await t.tab(2);
      await t.waitFor(/a=\s+b=/);
      // Clear the line and call it with no arguments: the form asks for each.
      await t.press('C-c');
      await t.next('(press Ctrl-C again');
      await t.line('add');
      await t.next('a (number): ');
      expect(await t.screen()).toContain('The first number');
      await t.line('twelve');
      await t.next('✗ Enter a number.');
      await t.line('2.5');
      await t.next('b (integer, 0 to 100): ');
      await t.line('101');
      await t.next('✗ Enter at most 100.');
      await t.line('3');
      const screen = await t.next('└─ sum: 5.5');
      expect(screen).toMatch(/✓ add · \d+ ms\n└─ sum: 5\.5\n/);
      // key=value on the line skips the form; the history numbers both calls; rerun repeats one.
      await t.line('add a=1 b=2');
      await t.next('└─ sum: 3');
      await t.line('history');
      const history = await t.next('rerun <n> calls one again');
      expect(history).toMatch(/1 {2}✓ add \{"a":2\.5,"b":3\} {2}ok/);
      expect(history).toMatch(/2 {2}✓ add \{"a":1,"b":2\} {2}ok/);
      await t.line('rerun 1');
      await t.next('(calling add again with {"a":2.5,"b":3})');
      await t.next('└─ sum: 5.5');
    },
  );

  it('shows the arguments of a destructive call and sends nothing without a yes; enums, lists and nested objects are asked too', SLOW, async () => {
    const { term: t, events } = await connect(['--', ...stdioServer]);
    const fillNote = async (title: string) => {
      await t.line('make_note');
      await t.next('title (text): ');
      await t.line(''); // required, with minLength 1
      await t.next('✗ Enter at least 1 character.');
      await t.line(title);
      await t.next('priority (choose one, optional) [default: normal]: ');
      await t.line('3');
      await t.next('tags[0]: ');
      await t.line('red');
      await t.next('tags[1]: ');
      await t.line('blue');
      await t.next('tags[2]: ');
      await t.line('');
      await t.next('author (object, optional): fill it in? [y/N] ');
      await t.line('y');
      await t.next('author.name (text): ');
      await t.line('Ada');
      await t.next('author.email (text, email, optional): ');
      await t.line('not-an-email');
      await t.next('✗ Enter a valid email.');
      await t.line('ada@example.com');
      await t.next('Send this call? [y/N] ');
    };
    await fillNote('first');
    const shown = await t.screen();
    expect(shown).toContain('make_note does not say it is read-only or harmless, so it may change or delete things. It would be called with:');
    expect(shown).toMatch(
      /├─ title: first\n├─ priority: high\n├─ tags \[2\]\n│ {2}├─ \[0\]: red\n│ {2}└─ \[1\]: blue\n└─ author \{2\}\n {3}├─ name: Ada\n {3}└─ email: ada@example\.com/,
    );
    await t.line(''); // the default is no
    await t.next('(not sent)');
    expect(events()).toEqual([]);
    await fillNote('second');
    await t.line('y');
    await t.next('✓ make_note');
    await expect
      .poll(events, { timeout: 10_000 })
      .toEqual([{ tool: 'make_note', args: { title: 'second', priority: 'high', tags: ['red', 'blue'], author: { name: 'Ada', email: 'ada@example.com' } } }]);
  });

  it('shows progress as a bar; Ctrl-C cancels the call (the server hears it) and the session goes on; a second Ctrl-C right after leaves', SLOW, async () => {
    const { term: t, events } = await connect(['--', ...stdioServer]);
    await t.line('slow_count');
    await t.next('25% counted to one');
    expect(await t.screen()).toMatch(/\[######\.{18}\] {2}25% counted to one/);
    await t.press('C-c');
    await t.next('(cancelled; the server was told to stop. Ctrl-C again leaves)');
    await expect.poll(events, { timeout: 10_000 }).toEqual([{ tool: 'slow_count', cancelled: true }]);
    // The stdio server did not get the Ctrl-C: the session still calls tools.
    await t.line('add a=1 b=1');
    await t.next('└─ sum: 2');
    // A call, Ctrl-C, and Ctrl-C again: the session ends. (The first bar was taken off the screen.)
    expect(await t.screen()).not.toContain('25% counted to one');
    await t.line('slow_count');
    await t.waitFor('25% counted to one');
    await t.press('C-c');
    await t.next('(cancelled; the server was told to stop. Ctrl-C again leaves)');
    await t.press('C-c');
    await t.next('[exited 0]');
  });

  it('over HTTP: answers the server’s question, saves a picture, reads a resource link, and refreshes the tools when they change', SLOW, async () => {
    const server = interactiveServer();
    const http = await serveHttp(server, { port: 0 });
    try {
      const { term: t, dir } = await connect([http.url]);
      expect(await t.screen()).toMatch(/Connected to playground 1\.2\.3 over http:\/\/127\.0\.0\.1:\d+\/mcp \(modern/);
      // Elicitation: the server asks mid-call, the person answers, the call completes.
      await t.line('ask_name');
      await t.next('The server asks: What should I call you?');
      await t.next('Your name: ');
      await t.line('Grace');
      await t.next('Send these answers? [y]es, [n]o (decline), [e]dit: ');
      await t.line('y');
      await t.next('hello Grace');
      // An image is saved to a file of the session's own, whose path is shown.
      await t.line('picture');
      const saved = /saved to (\S+\.png)/.exec(await t.next('saved to '))![1];
      expect(saved.startsWith(join(dir, 'out'))).toBe(true);
      expect(readFileSync(saved).subarray(1, 4).toString()).toBe('PNG');
      expect(statSync(saved).mode & 0o777).toBe(0o600);
      // A long text arrives as a link; `read <n>` fetches it with resources/read.
      await t.line('long_text');
      const link = /\[link (\d+)\]/.exec(await t.next('read it: read '))![1];
      await t.next(PROMPT);
      await t.line(`read ${link}`);
      await t.next('END-OF-LONG-TEXT');
      // The server adds a tool: the session hears it, says so, and completes the new name.
      await t.line('grow');
      await t.next("(the server's tools changed: added extra; 9 tools now)");
      await t.type('ext');
      await t.tab();
      await t.press('Enter');
      await t.next('extra!');
    } finally {
      await term?.kill();
      await http.close();
    }
  });

  it('draws no progress bar over a question the server asks while it works (legacy era: the tool runs on while asking)', SLOW, async () => {
    const { term: t } = await connect(['--era', 'legacy', '--', ...stdioServer]);
    await t.line('ask_while_working');
    await t.next('A note: ');
    // The tool keeps sending progress: give it time to try to draw.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const lines = (await t.screen()).trimEnd().split('\n');
    expect(lines.at(-1)?.trimEnd()).toBe('A note:');
    expect(lines.some((l) => l.includes('still working'))).toBe(false);
    await t.line('fine');
    await t.next('Send these answers? [y]es, [n]o (decline), [e]dit: ');
    await t.line('y');
    await t.next('note: fine');
  });

  it('leaves on Ctrl-D, closing the stdio server', SLOW, async () => {
    const { term: t } = await connect(['--', ...stdioServer]);
    await t.press('C-d');
    await t.next('[exited 0]');
  });
});

describe('toolwright connect without a terminal', () => {
  it('is a usage error that points to list and call', async () => {
    let stderr = '';
    const code = await runCli(['connect', 'http://127.0.0.1:1/mcp'], { stdout: () => {}, stderr: (t) => void (stderr += t) });
    expect(code).toBe(1);
    expect(stderr).toContain('connect is an interactive session: run it at a terminal (from scripts, use toolwright list and toolwright call)');
  });
});
