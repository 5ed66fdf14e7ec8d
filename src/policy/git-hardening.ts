import { CommandRefusal } from './command-refusal.js';

/**
 * How the exec toolset runs git (issue 18, item 3). A repository inside the
 * working root is written by whoever controls the workspace, and git treats
 * much of a repository's configuration as programs to run: core.fsmonitor
 * runs on `git status`, a filter driver on any command that compares the
 * work tree, diff drivers on `git diff` and `git log -p`, hooks on commit
 * and checkout, aliases, credential helpers, pagers, editors, ssh commands.
 * Allow-listing `git status` must not allow-list whatever the repository
 * names. Four layers close that class:
 *
 * 1. Environment: no system or global configuration (GIT_CONFIG_NOSYSTEM,
 *    GIT_CONFIG_GLOBAL=/dev/null, HOME unset), no terminal prompts, no
 *    askpass, no replace objects, no discovery above the working root
 *    (GIT_CEILING_DIRECTORIES), no protocols "from the user".
 * 2. Command line: every fixed-name key that runs a program is forced to a
 *    harmless value with `-c` (command-line configuration beats the
 *    repository's), and `--no-pager` goes first; diff-family subcommands get
 *    `--no-ext-diff --no-textconv`.
 * 3. Refusal: keys whose names the repository chooses (filter.<x>.clean,
 *    diff.<x>.command, merge.<x>.driver, alias.<x>, …) cannot be forced off
 *    by name, so the run is refused when git reports any of them in the
 *    configuration it would use (see `dangerousGitConfig`, checked by the
 *    exec toolset with `git config --list` under the same environment).
 * 4. Arguments: options before the subcommand (-c, -C, --git-dir,
 *    --exec-path, …) and options that turn a layer back on or run a program
 *    named by the caller are refused (see `checkGitArguments`).
 *
 * What stays open is written in docs/built-in-tools.md (exec, "git is hardened"): the check
 * and the run are two processes, so a configuration written in between by
 * something else (not the fs toolset, which denies `.git`) is seen by the
 * run only; and arguments that name paths outside the root are the
 * operator's argument patterns' job, as for every command.
 */

/** `-c` settings that neutralise every fixed-name key that runs a program or reaches further than the repository. */
export const GIT_CONFIG_OVERRIDES: ReadonlyArray<readonly [string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', 'false'],
  ['sequence.editor', 'false'],
  ['core.askPass', ''],
  ['core.sshCommand', 'ssh'],
  // An empty helper resets the list, URL-scoped helpers (credential.<url>.helper) included.
  ['credential.helper', ''],
  ['log.showSignature', 'false'],
  ['gpg.program', 'gpg'],
  ['gpg.openpgp.program', 'gpg'],
  ['gpg.x509.program', 'gpgsm'],
  ['gpg.ssh.program', 'ssh-keygen'],
  // No local paths or file:// (repositories outside the root), no ext:: (runs a command), no git-remote-* helpers.
  ['protocol.allow', 'never'],
  ['protocol.https.allow', 'always'],
  ['protocol.http.allow', 'always'],
  ['protocol.ssh.allow', 'always'],
  // A bare repository is a directory anyone can write inside the root; git 2.38+ then ignores it.
  ['safe.bareRepository', 'explicit'],
  // Submodules are repositories of their own, whose configuration is not checked: never descend into them.
  ['diff.ignoreSubmodules', 'all'],
  ['submodule.recurse', 'false'],
  ['status.submoduleSummary', 'false'],
  ['fetch.recurseSubmodules', 'false'],
  ['push.recurseSubmodules', 'no'],
  // A detached auto-gc starts its own session and would outlive the call's process group.
  ['gc.auto', '0'],
  ['gc.autoDetach', 'false'],
  ['maintenance.auto', 'false'],
];

/** Keys of GIT_CONFIG_OVERRIDES, lower-cased as `git config --list` prints them; a repository may set them, they lose. */
const OVERRIDDEN = new Set(GIT_CONFIG_OVERRIDES.map(([key]) => key.toLowerCase()));

/** Global options a caller may put before the subcommand: none of them reads configuration or runs anything. */
const SAFE_GLOBAL_OPTIONS = new Set([
  '--no-pager',
  '--no-replace-objects',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-optional-locks',
  '-P',
  '--version',
]);

/** Subcommands that get --no-ext-diff --no-textconv right after their name. */
const DIFF_FAMILY = new Set(['diff', 'log', 'show', 'whatchanged']);

/**
 * Long options refused after the subcommand, with any unique prefix git
 * would accept for them (parse-options takes abbreviations): they turn a
 * layer above back on, run a program the caller names, or write or read
 * outside the repository.
 */
const REFUSED_LONG_OPTIONS = [
  '--ext-diff',
  '--textconv',
  '--ignore-submodules',
  '--recurse-submodules',
  '--submodule',
  '--open-files-in-pager',
  '--exec',
  '--extcmd',
  '--upload-pack',
  '--receive-pack',
  '--config',
  '--config-env',
  '--file',
  '--output',
  '--output-directory',
  '--separate-git-dir',
  '--git-dir',
  '--work-tree',
  '--reference',
  '--reference-if-able',
  '--template',
  '--no-index',
];

/** Short options refused per subcommand (also inside a cluster such as -nO): same reasons. */
const REFUSED_SHORT_OPTIONS: Record<string, string> = {
  grep: 'O', // --open-files-in-pager=<program>
  rebase: 'x', // --exec <command>
  clone: 'cu', // --config, --upload-pack
  'format-patch': 'o', // --output-directory
  config: 'f', // --file <path>
  archive: 'o', // --output <path>
};

/** Subcommands that run programs by design, or work in repositories whose configuration is not checked. */
const REFUSED_SUBCOMMANDS: Record<string, string> = {
  submodule: 'it runs git in the submodules, whose configuration this server does not check',
  difftool: 'it runs a diff tool program',
  mergetool: 'it runs a merge tool program',
  bisect: '"bisect run" runs a command',
  'filter-branch': 'it runs shell commands',
  'send-email': 'it runs mail programs from the configuration',
  instaweb: 'it starts a web server and a browser',
  'web--browse': 'it starts a browser',
  help: 'it starts man, info or a browser',
  daemon: 'it serves repositories',
  'upload-pack': 'it serves a repository',
  'receive-pack': 'it serves a repository',
  shell: 'it runs commands',
};

/**
 * Refuses caller arguments that would undo the hardening: global options
 * before the subcommand (other than a few harmless ones), refused
 * subcommands, and refused options after it. Runs before the operator's
 * argument patterns are consulted, so it holds whatever they allow.
 */
export function checkGitArguments(name: string, args: readonly string[]): void {
  let i = 0;
  for (; i < args.length && args[i].startsWith('-'); i++) {
    if (!SAFE_GLOBAL_OPTIONS.has(args[i])) {
      throw new CommandRefusal(
        `${name}: the option ${shown(args[i])} before the subcommand is refused: git's global options (-c, -C, --git-dir, --work-tree, --exec-path, --config-env, -p, --help, …) can reconfigure git or run programs. Put options after the subcommand (e.g. "status --short").`,
      );
    }
  }
  if (i === args.length) return;
  const sub = args[i];
  const why = Object.hasOwn(REFUSED_SUBCOMMANDS, sub) ? REFUSED_SUBCOMMANDS[sub] : undefined;
  if (why) throw new CommandRefusal(`${name}: "git ${sub}" is refused on this server: ${why}.`);
  const shortRefused = Object.hasOwn(REFUSED_SHORT_OPTIONS, sub) ? REFUSED_SHORT_OPTIONS[sub] : '';
  for (const arg of args.slice(i + 1)) {
    if (arg === '--') break; // what follows is pathspecs, never options
    const refused = refusedLongOption(arg) ?? refusedShortOption(arg, shortRefused);
    if (refused) {
      throw new CommandRefusal(
        `${name}: ${shown(arg)} is refused on this server: ${refused} can run a program, reach outside the repository, or turn the protection of repository configuration back off.`,
      );
    }
  }
}

/** Real options that happen to be prefixes of a refused one: an exact option name always wins over an abbreviation. */
const EXACT_OPTIONS_ALLOWED = new Set(['--text']);

function refusedLongOption(arg: string): string | undefined {
  if (!arg.startsWith('--') || arg === '--') return undefined;
  const optionName = arg.split('=', 1)[0];
  if (EXACT_OPTIONS_ALLOWED.has(optionName)) return undefined;
  // "--no-ext-diff" is not a prefix of "--ext-diff": negations (which turn things off) pass.
  return REFUSED_LONG_OPTIONS.find((option) => option === optionName || (optionName.length > 2 && option.startsWith(optionName)));
}

function refusedShortOption(arg: string, letters: string): string | undefined {
  if (letters === '' || !/^-[^-]/.test(arg)) return undefined;
  const letter = [...letters].find((l) => arg.slice(1).includes(l));
  return letter === undefined ? undefined : `-${letter}`;
}

/**
 * The argv that runs: `--no-pager`, the `-c` overrides, then the caller's
 * arguments, with `--no-ext-diff --no-textconv` after a diff-family
 * subcommand (external diff and textconv drivers are programs).
 */
export function hardenedGitArgs(args: readonly string[]): string[] {
  const prefix = ['--no-pager', ...GIT_CONFIG_OVERRIDES.flatMap(([key, value]) => ['-c', `${key}=${value}`])];
  const sub = args.findIndex((a) => !a.startsWith('-'));
  if (sub < 0 || !DIFF_FAMILY.has(args[sub])) return [...prefix, ...args];
  return [...prefix, ...args.slice(0, sub + 1), '--no-ext-diff', '--no-textconv', ...args.slice(sub + 1)];
}

/** The same `-c` overrides alone, for the configuration check (which must discover the same repository). */
export function gitConfigOverrideArgs(): string[] {
  return GIT_CONFIG_OVERRIDES.flatMap(([key, value]) => ['-c', `${key}=${value}`]);
}

/** Variables removed from git's environment: where configuration and prompts would come from. */
const REMOVED_ENV = ['HOME', 'XDG_CONFIG_HOME', 'SSH_ASKPASS', 'GIT_ASKPASS', 'GIT_EXTERNAL_DIFF', 'GIT_PAGER', 'PAGER', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR'];

/**
 * git's environment: the command's own (operator-configured) environment
 * with the hardening variables forced. `ceiling` is the directory above the
 * working root, so repository discovery stops at the root.
 */
export function hardenedGitEnv(base: Readonly<Record<string, string>>, ceiling: string | undefined): Record<string, string> {
  const entries = Object.entries(base).filter(([name]) => !REMOVED_ENV.includes(name));
  entries.push(
    ['GIT_CONFIG_NOSYSTEM', '1'],
    ['GIT_CONFIG_GLOBAL', '/dev/null'],
    ['GIT_TERMINAL_PROMPT', '0'],
    // Empty: no askpass program, whatever core.askPass says.
    ['GIT_ASKPASS', ''],
    ['GIT_PAGER', 'cat'],
    ['GIT_EDITOR', 'false'],
    ['GIT_SEQUENCE_EDITOR', 'false'],
    ['GIT_NO_REPLACE_OBJECTS', '1'],
    ['GIT_PROTOCOL_FROM_USER', '0'],
  );
  if (ceiling !== undefined) entries.push(['GIT_CEILING_DIRECTORIES', ceiling]);
  return Object.fromEntries(entries);
}

/** A configuration key git reports, split as git names its parts (section and variable lower-cased, subsection as written). */
interface ConfigKey {
  key: string;
  section: string;
  subsection?: string;
  variable: string;
}

function splitKey(key: string): ConfigKey {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  const section = key.slice(0, first).toLowerCase();
  const variable = key.slice(last + 1).toLowerCase();
  return { key, section, variable, ...(last > first ? { subsection: key.slice(first + 1, last) } : {}) };
}

/** Variables, by section, that name a program when they appear under a subsection the repository chooses. */
const PROGRAM_VARIABLES_BY_SECTION: Record<string, readonly string[]> = {
  filter: ['clean', 'smudge', 'process'],
  diff: ['command', 'textconv'],
  merge: ['driver'],
  difftool: ['cmd', 'path'],
  mergetool: ['cmd', 'path'],
  browser: ['cmd', 'path'],
  man: ['cmd', 'path'],
  remote: ['uploadpack', 'receivepack', 'vcs'],
};

/** Fixed keys with no harmless value to force, refused when present. */
const REFUSED_KEYS = new Set(['diff.external', 'core.alternaterefscommand', 'interactive.difffilter']);

/** Any other variable whose name says it is a program (today's and tomorrow's: gpg.ssh.defaultKeyCommand, sendemail.toCmd, …). */
const PROGRAM_SUFFIX = /(?:cmd|command|program|helper|hook|editor|driver|textconv|askpass)$/;

/**
 * The first key in `git config --list -z` output that runs a program and
 * that the overrides cannot neutralise, with why; undefined when there is
 * none. Entries are `key\nvalue` (or a bare `key`), separated by NUL.
 */
export function dangerousGitConfig(listOutput: string): { key: string; why: string } | undefined {
  for (const entry of listOutput.split('\0')) {
    if (entry === '') continue;
    const newline = entry.indexOf('\n');
    const rawKey = newline < 0 ? entry : entry.slice(0, newline);
    const value = newline < 0 ? '' : entry.slice(newline + 1);
    const k = splitKey(rawKey);
    const lower = `${k.section}${k.subsection === undefined ? '' : `.${k.subsection.toLowerCase()}`}.${k.variable}`;
    if (OVERRIDDEN.has(lower) || (k.section === 'credential' && k.variable === 'helper') || (k.section === 'gpg' && k.variable === 'program')) continue;
    const why = reason(k, lower, value);
    if (why) return { key: rawKey, why };
  }
  return undefined;
}

function reason(k: ConfigKey, lower: string, value: string): string | undefined {
  if (k.section === 'alias') return 'an alias can run any shell command';
  if (k.subsection !== undefined && PROGRAM_VARIABLES_BY_SECTION[k.section]?.includes(k.variable))
    return `it names a program git runs (${k.section} ${k.variable})`;
  if (REFUSED_KEYS.has(lower)) return 'it names a program git runs';
  if (k.section === 'submodule' && k.variable === 'update' && value.trimStart().startsWith('!')) return 'a "!command" update runs a shell command';
  if (k.section === 'sendemail' && k.variable === 'smtpserver' && value.startsWith('/')) return 'it names a program git runs';
  if (PROGRAM_SUFFIX.test(k.variable)) return 'its name says it runs a program';
  return undefined;
}

function shown(arg: string): string {
  return JSON.stringify(arg.length > 60 ? `${arg.slice(0, 60)}…` : arg);
}
