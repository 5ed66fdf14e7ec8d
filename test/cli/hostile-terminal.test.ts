import { execFile, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built CLI (npm test builds first) against a hand-written hostile stdio server that puts
// terminal escapes, C1 controls, bidi overrides and invisible characters into every field it
// can fill (test/fixtures/cli/hostile-terminal-server.mjs). Every command that prints server
// text runs as a real child process; nothing of the sort may reach its stdout or stderr.
const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = [process.execPath, `${root}dist/cli/main.js`];
const server = ['--era', 'legacy', '--', process.execPath, `${root}test/fixtures/cli/hostile-terminal-server.mjs`];

/** Everything a terminal would act on or hide: C0 but tab/newline (and CR, checked apart), DEL, C1, bidi controls, invisibles, tags. */
const FORBIDDEN =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\u{e0000}|[\u{e0001}-\u{e007f}]/u;

const SCRIPT: string | undefined = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return 'script';
  } catch {
    return undefined;
  }
})();

/** The CLI with `args` against the hostile server, as one sh command line for script -c. */
function shellLine(args: string[]): string {
  return [...cli, ...args, ...server].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
}

interface Run {
  code: number | null;
  output: string;
}

const pipedRuns = new Map<string, Promise<Run & { stdout: string; stderr: string }>>();

/**
 * The CLI with stdout and stderr as pipes (what a script or `| less` gets). Run once per
 * argument list: tests that look at the same command's output in different ways share the run.
 */
function piped(args: string[]): Promise<Run & { stdout: string; stderr: string }> {
  const key = JSON.stringify(args);
  let run = pipedRuns.get(key);
  if (!run) pipedRuns.set(key, (run = pipedProcess(args)));
  return run;
}

function pipedProcess(args: string[]): Promise<Run & { stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cli[0], [...cli.slice(1), ...args, ...server], { env: { ...process.env, NO_COLOR: '1' }, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr, output: stdout + stderr });
    });
  });
}

/** The CLI on a real pseudo-terminal (util-linux script): progress bars, task lines and `read` to the screen. */
function onTerminal(args: string[]): Promise<Run> {
  const line = shellLine(args);
  return new Promise((resolve) => {
    execFile(SCRIPT!, ['-qefc', line, '/dev/null'], { env: { ...process.env, NO_COLOR: '1', TERM: 'xterm-256color' }, timeout: 30_000 }, (err, stdout) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, output: stdout });
    });
  });
}

/**
 * The CLI on a pseudo-terminal, typed at: each step waits until the output holds its text
 * `times` times (a prompt), then types its line. Resolves with everything shown.
 */
function typedSession(args: string[], steps: Array<{ waitFor: string; times: number; type: string }>): Promise<string> {
  const line = shellLine(args);
  const child = spawn(SCRIPT!, ['-qefc', line, '/dev/null'], {
    env: { ...process.env, NO_COLOR: '1', TERM: 'xterm-256color' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  let step = 0;
  const count = (text: string) => output.split(text).length - 1;
  const advance = () => {
    while (step < steps.length && count(steps[step].waitFor) >= steps[step].times) child.stdin.write(`${steps[step++].type}\r`);
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => {
    output += text;
    advance();
  });
  const timer = setTimeout(() => child.kill(), 30_000);
  return new Promise((resolve) => child.on('close', () => (clearTimeout(timer), resolve(output))));
}

function expectClean(output: string, onTty = false): void {
  // On a terminal the CLI itself clears its progress and task lines (CR, erase line); nothing else.
  // readline (connect) moves the cursor to redraw its prompt: column (CSI n G) and erase below (CSI 0 J), nothing else.
  const text = onTty
    ? output
        .replace(/\r\x1b\[2K|\x1b\[\d*G|\x1b\[0J/g, '')
        .replace(/\r\n/g, '\n')
        .replace(/\r/g, '')
    : output;
  const hit = FORBIDDEN.exec(text);
  expect(hit ? `${JSON.stringify(hit[0])} at ${hit.index}: ${JSON.stringify(text.slice(Math.max(0, hit.index - 40), hit.index + 40))}` : 'clean').toBe('clean');
  if (!onTty) expect(text).not.toContain('\r');
  // The server's words were printed (their visible part), not dropped.
  expect(text).toContain('MARK');
}

describe('a hostile server cannot reach the terminal through the CLI', () => {
  // [arguments, exit code]
  const commands: Array<[string[], number]> = [
    [['list'], 0],
    [['list', '--json'], 0],
    [['call', 'echo'], 0],
    [['call', 'echo', '--structured'], 0],
    [['call', 'echo', '--json'], 0],
    [['call', 'echo', '--verbose'], 0],
    [['call', 'fail'], 2],
    [['call', 'tool_error'], 3],
    [['call', 'ask'], 0],
    [['call', 'crash'], 2],
    [['call', 'slow_task', '--task'], 0],
    [['prompts'], 0],
    [['prompts', '--json'], 0],
    [['prompt', 'review', 'code=1'], 0],
    [['prompt', 'review', 'code=1', '--json'], 0],
    [['prompt', 'missing'], 2],
    [['resources'], 0],
    [['resources', '--json'], 0],
    [['read', 'test://text', '--json'], 0],
    [['read', 'test://missing'], 2],
    [['task', 'get', 'task-2'], 3],
    [['task', 'get', 'task-2', '--json'], 3],
  ];

  // At once (vitest runs up to 5 concurrent tests of a file): each is two processes started and waited for.
  it.concurrent.each(commands)('piped: %j', async (args, code) => {
    const run = await piped(args);
    expectClean(run.output);
    expect(run.code).toBe(code);
  });

  it("piped: --json output is the server's data, every unsafe character written as a JSON escape", async () => {
    const run = await piped(['call', 'echo', '--json']);
    const result = JSON.parse(run.stdout);
    expect(result.content[0].text).toContain('\x1b]52;c;cHduZWQ=\x07');
    expect(result.content[0].text).toContain('\u202eevil\u202c');
    expect(result.content[0].text).toContain('\u{e0041}\r\x00\x07\x7f\x85end');
    expect(run.stdout).toContain('\\u202e');
  });

  describe.skipIf(!SCRIPT)('on a terminal', () => {
    const onTty: Array<[string[], number]> = [
      [['read', 'test://text'], 0],
      [['call', 'echo'], 0],
      [['call', 'echo', '--verbose'], 0],
      [['call', 'slow_task', '--task'], 0],
      [['call', 'fail'], 2],
      [['list'], 0],
      [['prompt', 'review', 'code=1'], 0],
    ];
    it.concurrent.each(onTty)('%j', async (args, code) => {
      const run = await onTerminal(args);
      expectClean(run.output, true);
      expect(run.code).toBe(code);
    });

    it('connect: the banner (server info, instructions), tools, describe, calls and the tree, a failing call', { timeout: 60_000 }, async () => {
      const PROMPT = '> ';
      const ASK = 'Send this call? [y/N] ';
      const output = await typedSession(
        ['connect'],
        [
          { waitFor: PROMPT, times: 1, type: 'tools' },
          { waitFor: PROMPT, times: 2, type: 'describe echo' },
          { waitFor: PROMPT, times: 3, type: 'tool_error {}' },
          { waitFor: ASK, times: 1, type: 'y' },
          { waitFor: PROMPT, times: 4, type: 'fail {}' },
          { waitFor: ASK, times: 2, type: 'y' },
          { waitFor: PROMPT, times: 5, type: 'echo {}' },
          { waitFor: ASK, times: 3, type: 'y' },
          { waitFor: PROMPT, times: 6, type: 'structured' },
          { waitFor: PROMPT, times: 7, type: 'quit' },
        ],
      );
      expectClean(output, true);
      for (const seen of ['Connected to hostile MARK', 'instructions MARK', 'params: paramMARK', 'tool error MARK', 'failed MARK', 'text MARK', '─ key MARK'])
        expect(output).toContain(seen);
    });

    it('call: a question the server asks is answered at the terminal, its texts sanitized', { timeout: 60_000 }, async () => {
      const output = await typedSession(
        ['call', 'ask'],
        [
          { waitFor: '(optional): ', times: 1, type: 'bob' },
          { waitFor: 'Send these answers?', times: 1, type: 'y' },
        ],
      );
      expectClean(output, true);
      for (const seen of ['The server asks: question MARK', 'field MARK', 'asked: {"action":"accept","content":{"name":"bob"}} MARK'])
        expect(output).toContain(seen);
    });
  });
});
