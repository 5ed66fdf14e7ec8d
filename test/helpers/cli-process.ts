import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, onTestFinished } from 'vitest';
import { killAndReap } from './process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The built CLI (run `npm run build` first), as a user runs it. */
export const builtCli = `${root}dist/cli/main.js`;

export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited, with how. */
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with stderr once it matches `pattern` (polled, generous bound for a loaded machine); fails early if the process exits first. */
  waitForStderr(pattern: RegExp): Promise<RegExpExecArray>;
}

/**
 * `node dist/cli/main.js …` as a child process (killed and reaped when the test
 * finishes): flows that wait (login, Ctrl-C) must be tested in a real process,
 * since in-process the test runner keeps the event loop alive for them.
 */
export function startBuiltCli(args: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}): CliProcess {
  const env = { ...process.env, ...options.env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  const child = spawn(process.execPath, [builtCli, ...args], { cwd: options.cwd, env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  onTestFinished(() => killAndReap(child));
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let exited = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      resolve({ code, signal });
    });
  });
  const waitForStderr = async (pattern: RegExp) => {
    await expect
      .poll(
        () => {
          if (exited && !pattern.test(stderr))
            throw new Error(`the CLI exited (${child.exitCode ?? child.signalCode}) before its stderr showed ${pattern}; stderr:\n${stderr}`);
          return pattern.test(stderr);
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe(true);
    return pattern.exec(stderr)!;
  };
  return { child, stdout: () => stdout, stderr: () => stderr, exit, waitForStderr };
}
