import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { CommandRefusal } from '../../policy/command-refusal.js';
import { isWithin } from '../../policy/path-parse.js';
import { dangerousGitConfig, gitConfigOverrideArgs } from '../../policy/git-hardening.js';
import { runProcess } from './run-process.js';

interface GitGuardSpec {
  /** The git executable (the allow-listed entry's path). */
  gitPath: string;
  cwd: string;
  realRoot: string;
  /** The hardened environment the command itself will run with. */
  env: Record<string, string>;
  signal: AbortSignal;
  timeoutMs: number;
}

/** Configuration listings past this size are refused rather than half-read. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** git follows alternates this deep (objects/info/alternates of an alternate, …). */
const MAX_ALTERNATE_DEPTH = 5;

/**
 * Asks git, under the environment and overrides the command will run with,
 * what it would use here: the configuration (every file, includes followed)
 * and the repository's directories. Refuses when the configuration names a
 * program the overrides cannot switch off, or when the repository reaches
 * outside the working root (a `.git` file or `core.worktree` pointing
 * elsewhere, a common directory or alternates outside). Outside a
 * repository there is nothing to check.
 */
export async function checkGitRepository(spec: GitGuardSpec): Promise<void> {
  const config = await git(spec, ['config', '--list', '-z']);
  if (config.exitCode !== 0) {
    throw new CommandRefusal(
      `git cannot read the configuration here (${firstLine(config.stderr, spec.realRoot)}), so it is not run. Fix the repository's .git/config, or run from another directory.`,
    );
  }
  if (config.truncated) throw new CommandRefusal(`The repository's configuration is larger than ${MAX_CONFIG_BYTES} bytes, so git is not run.`);
  const bad = dangerousGitConfig(config.stdout);
  if (bad) {
    throw new CommandRefusal(
      `git is not run here: the repository's configuration sets ${quote(bad.key)}, and ${bad.why}; this server never lets a repository's configuration run programs. Remove that setting from .git/config (or its included files), or ask the operator.`,
    );
  }

  const dirs = await git(spec, ['rev-parse', '--absolute-git-dir', '--git-common-dir']);
  if (dirs.exitCode !== 0) return; // not inside a repository git would use: the command reports that itself
  const [gitDirLine, commonLine] = dirs.stdout.split('\n');
  const gitDir = await inside(spec, gitDirLine, 'git directory');
  const commonDir = await inside(spec, resolve(spec.cwd, commonLine ?? gitDirLine), 'common git directory');
  const worktree = lastValue(config.stdout, 'core.worktree');
  if (worktree !== undefined) await inside(spec, resolve(gitDir, worktree), 'work tree (core.worktree)');
  await checkAlternates(spec, join(commonDir, 'objects'), 0);
}

interface GitOutput {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
}

async function git(spec: GitGuardSpec, args: string[]): Promise<GitOutput> {
  const outcome = await runProcess({
    path: spec.gitPath,
    args: ['--no-pager', ...gitConfigOverrideArgs(), ...args],
    cwd: spec.cwd,
    env: spec.env,
    timeoutMs: spec.timeoutMs,
    maxOutputBytes: MAX_CONFIG_BYTES,
    killAfterOutputBytes: 2 * MAX_CONFIG_BYTES,
    signal: spec.signal,
  });
  if (outcome.timedOut)
    throw new CommandRefusal(`git did not answer within ${spec.timeoutMs / 1000} s while its configuration was checked, so the command was not run.`);
  return {
    exitCode: outcome.exitCode,
    stdout: outcome.stdout.text(),
    stderr: outcome.stderr.text(),
    truncated: outcome.stdout.truncated || outcome.outputLimitHit,
  };
}

/** The real path of `path`, which must lie inside the working root. */
async function inside(spec: GitGuardSpec, path: string, what: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw new CommandRefusal(`git is not run here: the repository's ${what} does not exist.`);
  }
  if (!isWithin(real, spec.realRoot)) {
    throw new CommandRefusal(`git is not run here: the repository's ${what} lies outside the working root, and commands never reach outside it.`);
  }
  return real;
}

/** objects/info/alternates lends objects of other repositories: each must be inside the root too. */
async function checkAlternates(spec: GitGuardSpec, objectsDir: string, depth: number): Promise<void> {
  let text: string;
  try {
    text = await readFile(join(objectsDir, 'info', 'alternates'), 'utf8');
  } catch {
    return; // no alternates
  }
  if (depth >= MAX_ALTERNATE_DEPTH) return;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const path = line.startsWith('"') ? unquoteC(line) : line;
    const real = await inside(spec, isAbsolute(path) ? path : resolve(objectsDir, path), 'object alternates');
    await checkAlternates(spec, real, depth + 1);
  }
}

/** git writes a quoted alternate path in C style; only the escapes a path needs are undone. */
function unquoteC(quoted: string): string {
  return quoted.slice(1, quoted.endsWith('"') ? -1 : undefined).replace(/\\(.)/g, '$1');
}

/** The last value of `key` in `git config --list -z` output (the one git uses). */
function lastValue(listOutput: string, key: string): string | undefined {
  let found: string | undefined;
  for (const entry of listOutput.split('\0')) {
    const newline = entry.indexOf('\n');
    if (newline >= 0 && entry.slice(0, newline).toLowerCase() === key) found = entry.slice(newline + 1);
  }
  return found;
}

/** git's first error line, with the root's absolute path hidden and hostile lengths cut. */
function firstLine(stderr: string, realRoot: string): string {
  const line = stderr.split('\n').find((l) => l.trim() !== '') ?? 'no message';
  const hidden = line.split(realRoot).join('.');
  return hidden.length > 200 ? `${hidden.slice(0, 200)}…` : hidden;
}

function quote(key: string): string {
  return JSON.stringify(key.length > 120 ? `${key.slice(0, 120)}…` : key);
}
