import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { CommandRefusal } from './command-refusal.js';
import { checkGitArguments } from './git-hardening.js';

/**
 * The allow-list of commands a model may run (issue 5, toolset exec): each
 * entry names one executable by absolute path, and patterns for the
 * arguments it accepts. Nothing here runs anything; it only decides.
 */
export interface AllowedCommand {
  /** Absolute path of the executable (run directly, never through a shell). */
  path: string;
  /** What the command is for; shown to the model. */
  description?: string;
  /** Regular expressions for args[0], args[1], …, each matched against the whole argument. */
  positional?: string[];
  /**
   * Regular expressions of which every argument past `positional` must
   * match one (whole-argument match). Omitted: no arguments beyond
   * `positional` — an entry with neither takes no arguments at all.
   * `[".*"]` allows any argument (`.` also matches line breaks here).
   */
  args?: string[];
  /** Most arguments (default 64). */
  maxArgs?: number;
  /** The command only reads: it cannot change files or anything else. Default false. */
  readOnly?: boolean;
  /** Time this command may run (default: the toolset's timeout). */
  timeoutMs?: number;
  /** Variables added to this command's environment. */
  env?: Record<string, string>;
  /**
   * How the command is hardened against configuration the workspace
   * controls. "auto" (default): git is recognised by the executable's name
   * (`git`, or a path whose real file is named `git`) and runs with the git
   * profile (see policy/git-hardening.ts); other commands run as they are.
   * "git": apply the git profile to a wrapper or renamed git.
   */
  hardening?: 'auto' | 'git';
}

/** Hardening profiles the exec toolset knows. */
type HardeningProfile = 'git';

interface CommandPolicyOptions {
  commands: Record<string, AllowedCommand>;
  /** Longest single argument, in characters (default 4096). */
  maxArgLength?: number;
}

export { CommandRefusal };

export interface CompiledCommand {
  name: string;
  entry: AllowedCommand;
  positional: RegExp[];
  rest: RegExp[];
  maxArgs: number;
  /** The profile the command runs with, if any. */
  hardening?: HardeningProfile;
}

const NAME = /^[A-Za-z0-9_.+-]{1,64}$/;

export class CommandPolicy {
  /** A Map, so command names such as `constructor` or `__proto__` are just names. */
  private readonly commands = new Map<string, CompiledCommand>();
  private readonly maxArgLength: number;

  constructor(options: CommandPolicyOptions) {
    this.maxArgLength = options.maxArgLength ?? 4096;
    for (const [name, entry] of Object.entries(options.commands)) {
      if (!NAME.test(name)) throw new RangeError(`exec: command name "${name}" must be 1–64 characters of letters, digits, _ . + -`);
      if (typeof entry.path !== 'string' || !entry.path.startsWith('/'))
        throw new RangeError(`exec: command "${name}" needs an absolute "path" to its executable`);
      if (entry.hardening !== undefined && entry.hardening !== 'auto' && entry.hardening !== 'git')
        throw new RangeError(`exec: command "${name}" has an unknown "hardening" ${JSON.stringify(entry.hardening)}; use "auto" or "git"`);
      const hardening = hardeningOf(entry);
      this.commands.set(name, {
        name,
        entry,
        positional: (entry.positional ?? []).map((p) => compilePattern(name, p)),
        rest: (entry.args ?? []).map((p) => compilePattern(name, p)),
        maxArgs: entry.maxArgs ?? 64,
        ...(hardening ? { hardening } : {}),
      });
    }
    if (this.commands.size === 0) throw new RangeError('exec: at least one command must be allowed');
  }

  get names(): string[] {
    return [...this.commands.keys()];
  }

  get(name: string): CompiledCommand | undefined {
    return this.commands.get(name);
  }

  /** Every entry is read-only: the tool as a whole cannot change anything. */
  get allReadOnly(): boolean {
    return [...this.commands.values()].every((c) => c.entry.readOnly === true);
  }

  /** Returns the command to run, or throws a refusal that lists what is allowed. */
  check(name: string, args: readonly string[]): CompiledCommand {
    const command = this.commands.get(name);
    if (!command) throw new CommandRefusal(`Command "${name.slice(0, 64)}" is not allowed on this server. Allowed commands: ${this.names.join(', ')}.`);
    if (args.length > command.maxArgs) throw new CommandRefusal(`${name} accepts at most ${command.maxArgs} arguments; ${args.length} were given.`);
    args.forEach((arg, i) => {
      if (arg.includes('\0')) throw new CommandRefusal(`Argument ${i + 1} of ${name} contains a NUL character, which no argument can hold.`);
      if (arg.length > this.maxArgLength)
        throw new CommandRefusal(`Argument ${i + 1} of ${name} is ${arg.length} characters; the limit is ${this.maxArgLength}.`);
      const allowed = i < command.positional.length ? [command.positional[i]] : command.rest;
      if (!allowed.some((re) => re.test(arg))) throw new CommandRefusal(argumentRefusal(command, i, arg));
    });
    // Whatever the patterns allow, a hardened command refuses the arguments that would undo its hardening.
    if (command.hardening === 'git') checkGitArguments(name, args);
    return command;
  }

  /** One line per command for the tool description: name, purpose, argument rule, read-only or not. */
  summary(): string {
    return [...this.commands.values()]
      .map(
        (c) =>
          `${c.name}${c.entry.description ? ` (${c.entry.description})` : ''}: ${argumentRule(c)}${c.entry.readOnly ? '; read-only' : ''}${c.hardening === 'git' ? HARDENED_GIT_NOTE : ''}`,
      )
      .join('\n');
  }
}

const HARDENED_GIT_NOTE =
  '; runs hardened: no global options before the subcommand, no pager, hooks or fsmonitor, and a repository whose configuration defines programs (filters, diff or merge drivers, aliases) is refused';

/**
 * The profile of an entry: "git" when asked for, or when the executable is
 * git by name — the configured path's last segment, or that of the file it
 * resolves to (`/usr/local/bin/g` → `/usr/bin/git`). A missing executable is
 * judged by its configured name; the run then fails with a clear message.
 */
function hardeningOf(entry: AllowedCommand): HardeningProfile | undefined {
  if (entry.hardening === 'git') return 'git';
  const isGit = (path: string) => /^git(?:\.exe)?$/i.test(basename(path));
  if (isGit(entry.path)) return 'git';
  try {
    if (isGit(realpathSync(entry.path))) return 'git';
  } catch {
    // missing or unreadable: only the configured name counts
  }
  return undefined;
}

function compilePattern(name: string, source: string): RegExp {
  try {
    // Anchored: a pattern describes the whole argument, never a substring of it.
    return new RegExp(`^(?:${source})$`, 's');
  } catch (err) {
    throw new RangeError(`exec: argument pattern ${JSON.stringify(source)} of command "${name}" is not a valid regular expression (${(err as Error).message})`);
  }
}

function argumentRefusal(command: CompiledCommand, i: number, arg: string): string {
  const shown = JSON.stringify(arg.length > 80 ? `${arg.slice(0, 80)}…` : arg);
  if (i >= command.positional.length && command.rest.length === 0) {
    const n = command.positional.length;
    return `${command.name} takes ${n === 0 ? 'no arguments' : `at most ${n} argument${n === 1 ? '' : 's'}`} on this server; argument ${i + 1} (${shown}) was refused. Allowed: ${argumentRule(command)}.`;
  }
  return `Argument ${i + 1} of ${command.name} (${shown}) is not allowed. Allowed: ${argumentRule(command)}.`;
}

/** The argument rule in words, with the patterns as written in the config. */
function argumentRule(c: CompiledCommand): string {
  const source = (re: RegExp) => re.source.slice(4, -2);
  const parts = c.positional.map((re, i) => `argument ${i + 1} matching /${source(re)}/`);
  if (c.rest.length > 0)
    parts.push(`${parts.length > 0 ? 'further arguments' : 'arguments'} each matching one of ${c.rest.map((re) => `/${source(re)}/`).join(', ')}`);
  return parts.length === 0 ? 'no arguments' : parts.join(', ');
}
