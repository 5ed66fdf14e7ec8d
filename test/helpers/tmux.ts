import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';

const run = promisify(execFile);

/** Where tmux is, or undefined when it is not installed (tests skip then, except under CI=true where they fail). */
export const TMUX: string | undefined = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return 'tmux';
  } catch {
    return undefined;
  }
})();

if (!TMUX) console.warn('\n*** SKIPPED: the terminal tests need tmux, which is not installed (they fail under CI=true) ***\n');

/** Keys tmux knows by name (send-keys without -l). */
export type KeyName = 'Enter' | 'Tab' | 'C-c' | 'C-d' | 'Up' | 'Down' | 'BSpace' | 'Escape';

/**
 * A program running in a real pseudo-terminal: a detached tmux session on its
 * own server (a unique -L socket, so parallel tests never share one), driven
 * with send-keys and read with capture-pane. When the program ends the pane
 * stays, showing "[exited N]", so a test can read its last words and its
 * exit code. `kill()` ends the tmux server and everything in it.
 */
export class TerminalSession {
  private readonly seen = new Map<string, number>();

  private constructor(private readonly socket: string) {}

  static async start(
    command: string[],
    options: { cwd?: string; env?: Record<string, string | undefined>; width?: number; height?: number } = {},
  ): Promise<TerminalSession> {
    if (!TMUX) throw new Error('tmux is not installed');
    const socket = `tw-test-${process.pid}-${randomBytes(4).toString('hex')}`;
    const session = new TerminalSession(socket);
    // sh keeps the pane (and the exit code) after the program ends; "$@" passes the command untouched.
    // Ctrl-C reaches the whole foreground group: sh catches it (a handler, which the program does
    // not inherit, unlike an ignored signal) so it outlives the program and reports its exit.
    const wrapper = ['sh', '-c', 'trap : INT; "$@"; echo "[exited $?]"; exec sleep 600', 'sh', ...command];
    await run(
      TMUX,
      ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'main', '-x', String(options.width ?? 160), '-y', String(options.height ?? 50), ...wrapper],
      {
        cwd: options.cwd,
        // The tmux server starts with this environment, and the pane's shell inherits it.
        env: { ...process.env, TERM: 'xterm-256color', ...options.env } as NodeJS.ProcessEnv,
      },
    );
    return session;
  }

  /** Types `text` literally (no key names). */
  async type(text: string): Promise<void> {
    await this.tmux('send-keys', '-t', 'main', '-l', text);
  }

  async press(...keys: KeyName[]): Promise<void> {
    for (const key of keys) await this.tmux('send-keys', '-t', 'main', key);
  }

  /**
   * Presses Tab `times` times, each once the screen has stopped changing, and waits for it to settle again. Node's readline
   * completes only on a Tab that arrives alone: one read that also holds the keys typed before
   * it (a loaded machine coalesces them in the pty) counts as a paste, and its Tab is inserted.
   */
  async tab(times = 1): Promise<void> {
    for (let i = 0; i < times; i++) {
      await this.settle();
      await this.press('Tab');
    }
    await this.settle(); // and the keys after it are not read with it
  }

  /** Resolves once two captures 150 ms apart are the same (at most `timeout` ms). */
  async settle(timeout = 5_000): Promise<void> {
    const until = Date.now() + timeout;
    let last = await this.screen();
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, 150));
      const now = await this.screen();
      if (now === last) return;
      last = now;
    }
  }

  /** Types a line and presses Enter. */
  async line(text: string): Promise<void> {
    if (text) await this.type(text);
    await this.press('Enter');
  }

  /** The screen and its scrollback, lines joined where the terminal wrapped them; `escapes` keeps colours as SGR sequences. */
  async screen(options: { escapes?: boolean } = {}): Promise<string> {
    const { stdout } = await this.tmux('capture-pane', '-p', '-J', ...(options.escapes ? ['-e'] : []), '-S', '-2000', '-t', 'main');
    return stdout;
  }

  /** The screen once it matches `pattern` (polled; generous bound for a loaded machine). */
  async waitFor(pattern: RegExp | string, timeout = 15_000): Promise<string> {
    let last = '';
    const matches = (text: string) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text));
    try {
      await expect
        .poll(
          async () => {
            last = await this.screen();
            return matches(last);
          },
          { timeout, interval: 100 },
        )
        .toBe(true);
    } catch {
      throw new Error(`the terminal never showed ${String(pattern)}; it shows:\n${last}`);
    }
    return last;
  }

  /**
   * Waits for one more occurrence of `text` than was seen by the last `next`
   * for the same text (a prompt shown again, a second result), and returns
   * the screen. Earlier occurrences in the scrollback do not count.
   */
  async next(text: string, timeout = 15_000): Promise<string> {
    const seen = this.seen.get(text) ?? 0;
    let last = '';
    try {
      await expect
        .poll(
          async () => {
            last = await this.screen();
            return last.split(text).length - 1;
          },
          { timeout, interval: 100 },
        )
        .toBeGreaterThan(seen);
    } catch {
      throw new Error(`the terminal never showed ${JSON.stringify(text)} again (seen ${seen} time(s)); it shows:\n${last}`);
    }
    this.seen.set(text, last.split(text).length - 1);
    return last;
  }

  /** How many times `pattern` occurs on the screen now. */
  async count(pattern: string): Promise<number> {
    return (await this.screen()).split(pattern).length - 1;
  }

  /** The pane's title, which an OSC 0/2 escape written to the terminal would change. */
  async title(): Promise<string> {
    const { stdout } = await this.tmux('display-message', '-p', '-t', 'main', '#{pane_title}');
    return stdout.trim();
  }

  /** Ends the tmux server and every process in its panes, and removes its socket file. */
  async kill(): Promise<void> {
    await this.tmux('kill-server').catch(() => {});
    const dir = join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`);
    rmSync(join(dir, this.socket), { force: true });
  }

  private tmux(...args: string[]) {
    return run(TMUX!, ['-L', this.socket, ...args]);
  }
}
