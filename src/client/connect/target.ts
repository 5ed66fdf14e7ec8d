import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { StdioTarget } from '../transports/stdio-client.js';
import type { ClientTarget } from '../types.js';
import { capturingStderr } from './server-stderr.js';
import { ENV_NAME, findServer } from './servers-file.js';
import { UsageError } from './usage-error.js';

/**
 * Which server a command or the console talks to, from what a person typed: a URL, `@name` in a
 * servers file, or a command to spawn over stdio, with its headers, environment and folder.
 */

/** Options every client command shares. */
export interface ClientCommandOptions {
  era: string;
  timeout?: string;
  /** How long connecting may take (default 10 s). */
  connectTimeout?: string;
  header: string[];
  json?: boolean;
  verbose?: boolean;
  /** `-e KEY=VAL` (repeatable): added to a stdio server's environment. */
  env?: string[];
  /** A stdio server's working directory. */
  cwd?: string;
  /** Where `@name` is looked up (servers-file.ts has the default search). */
  serversFile?: string;
}

/**
 * The server a command talks to: an http(s) URL operand, or the command
 * given after `--` (spawned over stdio). Exactly one of them.
 */
export function resolveTarget(url: string | undefined, command: string[], options: ClientCommandOptions): ClientTarget {
  if (url !== undefined && command.length) throw new UsageError('give either a server URL or a command after --, not both');
  if (url?.startsWith('@')) return namedTarget(url.slice(1), options);
  if (options.serversFile !== undefined) throw new UsageError('--servers-file applies to a named server: toolwright list @name --servers-file <path>');
  if (command.length) {
    if (options.header.length) throw new UsageError('--header applies to HTTP servers only');
    return stdioTarget({ command: command[0], args: command.slice(1) }, options);
  }
  refuseStdioOptions(options);
  if (url === undefined) throw new UsageError('which server? Give an http(s):// URL, or a command after --, e.g. toolwright list -- node server.js');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`not a URL: ${JSON.stringify(url)} (to start a server over stdio, put its command after --)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`the server URL must be http:// or https://, got ${parsed.protocol}`);
  return { url: parsed.href, headers: parseHeaders(options.header) };
}

/** `@name`: a server from a servers file, with -e, --cwd and --header applied over its entry. */
function namedTarget(name: string, options: ClientCommandOptions): ClientTarget {
  const server = findServer(name, options.serversFile);
  if (server.kind === 'stdio') {
    if (options.header.length) throw new UsageError(`--header applies to HTTP servers only; @${name} is a stdio server`);
    return stdioTarget({ command: server.command, args: server.args, env: server.env, ...(server.cwd !== undefined ? { cwd: server.cwd } : {}) }, options);
  }
  refuseStdioOptions(options);
  return { url: server.url, headers: { ...server.headers, ...parseHeaders(options.header) } };
}

/**
 * A stdio server as the command line starts it: the user's own shell
 * environment (their server, started on their behalf) plus `-e`, in `--cwd`,
 * its stderr kept to be shown if it fails (all of it as it comes with --verbose).
 */
function stdioTarget(base: StdioTarget, options: ClientCommandOptions): StdioTarget {
  const env = { ...base.env, ...parseEnv(options.env ?? []) };
  const cwd = options.cwd !== undefined ? checkedCwd(options.cwd, '--cwd') : base.cwd !== undefined ? checkedCwd(base.cwd, "the server's cwd") : undefined;
  return capturingStderr({ ...base, env, ...(cwd !== undefined ? { cwd } : {}), inheritEnv: true, detectWrongTransport: servesHttp }, options.verbose);
}

/** The line `toolwright serve` prints once it listens over HTTP (serve.ts). */
const SERVING_HTTP = /^toolwright: serving \d+ tool\(s\) on https?:\/\//;

/**
 * A `toolwright serve` the command started that serves HTTP (`--http`, or the config's
 * `transport: http` as `toolwright init` writes it) never answers on its stdout: said at once,
 * with the flag that fixes it, instead of a connect timeout ten seconds later. Not guessed on
 * the server's side: a serve started with its stdin a pipe is not always a stdio server's.
 */
function servesHttp(line: string): string | undefined {
  if (!SERVING_HTTP.test(line)) return undefined;
  return 'the server serves HTTP, not stdio, so it will not answer on its stdout: add --stdio to its command (toolwright serve --stdio), or start it on its own and give its URL';
}

/** -e and --cwd start a process: an HTTP server is not one this command starts. */
function refuseStdioOptions(options: ClientCommandOptions): void {
  if (options.env?.length) throw new UsageError('-e applies to stdio servers only (a command after --), not to a URL');
  if (options.cwd !== undefined) throw new UsageError('--cwd applies to stdio servers only (a command after --), not to a URL');
}

function parseEnv(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    if (eq === -1 || !ENV_NAME.test(name))
      throw new UsageError(`-e expects KEY=VALUE with KEY letters, digits and _ (not starting with a digit), got ${JSON.stringify(pair)}`);
    const value = pair.slice(eq + 1);
    if (value.includes('\0')) throw new UsageError(`-e ${name}: the value may not contain a NUL character`);
    env[name] = value;
  }
  return env;
}

/** Checked here: a missing directory would otherwise fail the spawn as "command not found". */
function checkedCwd(dir: string, what: string): string {
  const absolute = resolve(dir);
  let isDir = false;
  try {
    isDir = statSync(absolute).isDirectory();
  } catch {
    throw new UsageError(`${what}: no such directory: ${JSON.stringify(dir)}`);
  }
  if (!isDir) throw new UsageError(`${what}: not a directory: ${JSON.stringify(dir)}`);
  return absolute;
}

function parseHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim();
    if (colon <= 0 || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) throw new UsageError(`--header expects "Name: value", got ${JSON.stringify(line)}`);
    const value = line.slice(colon + 1).trim();
    if (/[\r\n\0]/.test(value)) throw new UsageError(`--header ${name}: the value may not contain line breaks`);
    headers[name] = value;
  }
  return headers;
}

export function parseTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) throw new UsageError(`--timeout must be a positive number of milliseconds, got ${JSON.stringify(value)}`);
  return ms;
}
