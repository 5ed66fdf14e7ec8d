import { basename } from 'node:path';
import { CommandRefusal, type CommandPolicy } from '../../policy/commands.js';

/**
 * Whether one `execute_command` call may run without the user's approval: it
 * names an allow-listed command the operator marked `readOnly`, with
 * arguments the allow-list accepts, and none of the writing options known
 * below for that program. Anything else, including a call the allow-list
 * refuses, is asked about as before.
 *
 * `readOnly` is the operator's word for the entry as configured; the checks
 * below only catch the common ways an argument pattern wider than intended
 * (`args: [".*"]`) would let a "read-only" program write. They are not a
 * proof: keep a readOnly entry's argument patterns narrow (SECURITY.md).
 */
export function isReadOnlyCall(policy: CommandPolicy, args: { command?: unknown; args?: unknown }): boolean {
  if (typeof args.command !== 'string') return false;
  const argv = args.args ?? [];
  if (!Array.isArray(argv) || !argv.every((a): a is string => typeof a === 'string')) return false;
  let entry: ReturnType<CommandPolicy['check']>['entry'];
  try {
    entry = policy.check(args.command, argv).entry;
  } catch (err) {
    if (err instanceof CommandRefusal) return false;
    throw err;
  }
  if (entry.readOnly !== true) return false;
  const program = basename(entry.path).toLowerCase();
  if (ALWAYS_WRITES.has(program)) return false;
  return !(WRITING_ARGUMENTS[program]?.(argv) ?? false);
}

/** Programs that write, send, or run other programs (sed's `w` and `e`, awk's `system`), whatever their arguments. */
const ALWAYS_WRITES = new Set([
  'rm',
  'mv',
  'cp',
  'dd',
  'tee',
  'touch',
  'mkdir',
  'rmdir',
  'ln',
  'chmod',
  'chown',
  'chgrp',
  'truncate',
  'install',
  'shred',
  'patch',
  'sh',
  'bash',
  'zsh',
  'dash',
  'fish',
  'env',
  'xargs',
  'nice',
  'nohup',
  'timeout',
  'sudo',
  'doas',
  'su',
  'python',
  'python3',
  'node',
  'deno',
  'bun',
  'perl',
  'ruby',
  'php',
  'sed',
  'awk',
  'gawk',
  'mawk',
  'npm',
  'npx',
  'make',
  'curl',
  'wget',
]);

const has = (argv: readonly string[], re: RegExp) => argv.some((a) => re.test(a));

/** Programs usually read-only that write (or start another program) with some options. */
const WRITING_ARGUMENTS: Record<string, (argv: readonly string[]) => boolean> = {
  find: (argv) => has(argv, /^-(delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/),
  // -o FILE, also inside a cluster of short options (-uo out), and --output[=FILE].
  sort: (argv) => has(argv, /^(-[^-]*o|--o)/),
  git: gitWrites,
};

/** Git subcommands that only read the repository. */
const GIT_READS = new Set([
  'log',
  'show',
  'diff',
  'status',
  'blame',
  'annotate',
  'ls-files',
  'ls-tree',
  'rev-parse',
  'rev-list',
  'grep',
  'cat-file',
  'describe',
  'shortlog',
  'show-ref',
  'for-each-ref',
  'diff-tree',
  'diff-files',
  'diff-index',
  'name-rev',
  'merge-base',
  'count-objects',
  'whatchanged',
  'version',
]);

/** Read-only only as `git <reading subcommand> …`: a global option first (-C, -c, --git-dir) changes what runs where. */
function gitWrites(argv: readonly string[]): boolean {
  if (argv.length === 0 || !GIT_READS.has(argv[0]!)) return true;
  // `diff --output=FILE` writes; external diff and textconv drivers and `grep -O` (a pager) run programs.
  return has(argv, /^(--output|--ext-diff|--textconv|-O|--open-files-in-pager)/);
}
