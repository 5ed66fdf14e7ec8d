import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { HEADER_NAME_TOKEN } from '../../protocol/header-params.js';
import { UsageError } from './usage-error.js';
import { expandVariables, VariableError } from './expand-variables.js';

/** One named server from a servers file, as the command line starts or reaches it. */
export type NamedServer =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { kind: 'http'; url: string; headers: Record<string, string> };

const MAX_FILE_BYTES = 1024 * 1024;
/** An environment variable name (also what connect's -e KEY=VALUE takes). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = HEADER_NAME_TOKEN;
const KEYS = new Set(['type', 'command', 'args', 'env', 'cwd', 'url', 'headers']);
/** Keys desktop clients keep for their own UI: they do not change how the server is reached. */
const IGNORED_KEYS = new Set(['description', 'disabled', 'autoApprove', 'alwaysAllow']);
const HTTP_TYPES = new Set(['http', 'streamable-http', 'streamableHttp']);

/**
 * Where `@name` is looked up when --servers-file is not given, in this order
 * (the first file that defines the name wins): the project's `.mcp.json` and
 * `mcp.json` in the current directory, then the user's
 * `$XDG_CONFIG_HOME/toolwright/servers.json` (default `~/.config/…`).
 */
function defaultServersFiles(cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): string[] {
  const config = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return [join(cwd, '.mcp.json'), join(cwd, 'mcp.json'), join(config, 'toolwright', 'servers.json')];
}

/**
 * The server `name` from a file in the desktop clients' format:
 * `{ "mcpServers": { "<name>": { command, args, env, cwd } | { url, headers } } }`
 * (`"servers"` as VS Code names it is read too). Only the named entry is checked, as the
 * desktop clients use one entry without judging the others: an entry toolwright could not
 * start (or one marked disabled) elsewhere in the file does not stop `@name`. A named entry
 * marked `"disabled": true` is skipped with a note, and the next file is looked in.
 * `${VAR}` and `${VAR:-default}` in its command, args, env, url and headers are expanded
 * from `env` (see expandVariables). A problem names the file and the key.
 */
export function findServer(
  name: string,
  serversFile: string | undefined,
  note: (text: string) => void = (text) => void process.stderr.write(text),
  env: NodeJS.ProcessEnv = process.env,
): NamedServer {
  if (!name) throw new UsageError("give the server's name after @, e.g. toolwright list @filesystem");
  const files = serversFile !== undefined ? [serversFile] : defaultServersFiles().filter(isFile);
  if (serversFile !== undefined && !isFile(serversFile)) throw new UsageError(`--servers-file: no such file: ${JSON.stringify(serversFile)}`);
  if (!files.length) throw new UsageError(`@${name}: no servers file; looked for ${defaultServersFiles().join(', ')} (or give --servers-file <path>)`);
  const known: string[] = [];
  const disabledIn: string[] = [];
  for (const file of files) {
    const { key, entries } = readServersFile(file);
    if (Object.hasOwn(entries, name)) {
      const entry = entries[name];
      if (isObject(entry) && entry.disabled === true) {
        disabledIn.push(file);
        continue;
      }
      if (disabledIn.length) note(`toolwright: note: @${name} is disabled in ${disabledIn.join(', ')}; using the one in ${file}\n`);
      return checkEntry(entry, `${key}.${name}`, file, env);
    }
    known.push(...Object.keys(entries));
  }
  if (disabledIn.length) {
    throw new UsageError(`@${name} is marked "disabled": true in ${disabledIn.join(', ')}; set it to false (or remove it) to use this server`);
  }
  const names = [...new Set(known)]
    .slice(0, 20)
    .map((n) => JSON.stringify(n))
    .join(', ');
  throw new UsageError(`no server named ${JSON.stringify(name)} in ${files.join(', ')}${names ? `; it has: ${names}` : ''}`);
}

/**
 * Every server of a servers file (`toolwright serve --upstreams .mcp.json` mounts them all), each
 * checked and expanded as `findServer` does; entries marked `"disabled": true` are left out.
 */
export function readServers(file: string, env: NodeJS.ProcessEnv = process.env): Map<string, NamedServer> {
  if (!isFile(file)) throw new UsageError(`--upstreams: no such file: ${JSON.stringify(file)}`);
  const { key, entries } = readServersFile(file);
  const servers = new Map<string, NamedServer>();
  for (const [name, entry] of Object.entries(entries)) {
    if (isObject(entry) && entry.disabled === true) continue;
    servers.set(name, checkEntry(entry, `${key}.${name}`, file, env));
  }
  return servers;
}

/** One file's servers by name, unchecked (each is checked when it is named), and the key they are under. */
function readServersFile(file: string): { key: string; entries: Record<string, unknown> } {
  let text: string;
  try {
    if (statSync(file).size > MAX_FILE_BYTES) throw new UsageError(`${file}: larger than 1 MiB; not a servers file`);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  const at = (key: string) => new Problem(file, key);
  if (!isObject(parsed)) throw at('').is('a JSON object with an "mcpServers" object');
  const key = Object.hasOwn(parsed, 'mcpServers') ? 'mcpServers' : Object.hasOwn(parsed, 'servers') ? 'servers' : undefined;
  if (!key) throw at('').is('a JSON object with an "mcpServers" object');
  const entries = parsed[key];
  if (!isObject(entries)) throw at(key).is('an object of servers by name');
  return { key, entries };
}

function checkEntry(entry: unknown, path: string, file: string, vars: NodeJS.ProcessEnv): NamedServer {
  const at = (key: string) => new Problem(file, key ? `${path}.${key}` : path);
  if (!isObject(entry)) throw at('').is('an object: { "command", "args", "env", "cwd" } or { "url", "headers" }');
  for (const key of Object.keys(entry)) {
    if (!KEYS.has(key) && !IGNORED_KEYS.has(key)) throw at(key).is(`not a key toolwright reads (it reads ${[...KEYS].join(', ')})`);
  }
  const type = entry.type;
  if (type !== undefined && typeof type !== 'string') throw at('type').is('a string');
  if (type === 'sse')
    throw at('type').is(
      '"stdio" or "http": "sse" (the HTTP+SSE transport of 2024-11-05) is not supported; give the server\'s Streamable HTTP endpoint with "type": "http"',
    );
  if (type !== undefined && type !== 'stdio' && !HTTP_TYPES.has(type)) throw at('type').is(`"stdio", "http" or "streamable-http", not ${JSON.stringify(type)}`);
  const isHttp = type !== undefined ? HTTP_TYPES.has(type) : entry.url !== undefined;
  if (entry.command !== undefined && entry.url !== undefined) throw at('').is('either a "command" (stdio) or a "url" (HTTP), not both');
  if (isHttp) {
    for (const key of ['command', 'args', 'env', 'cwd']) if (entry[key] !== undefined) throw at(key).is('absent for an HTTP server');
    const url = checkString(entry.url, at('url'), false, vars);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw at('url').is('an http:// or https:// URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw at('url').is('an http:// or https:// URL');
    const headers = checkStringMap(entry.headers, at('headers'), (k) => at(`headers.${k}`), HEADER_NAME, 'a header name', vars);
    for (const [k, v] of Object.entries(headers)) if (/[\r\n\0]/.test(v)) throw at(`headers.${k}`).is('a value without line breaks');
    return { kind: 'http', url: parsed.href, headers };
  }
  for (const key of ['url', 'headers']) if (entry[key] !== undefined) throw at(key).is('absent for a stdio server');
  const command = checkString(entry.command, at('command'), false, vars);
  if (entry.args !== undefined && !Array.isArray(entry.args)) throw at('args').is('an array of strings');
  const args = ((entry.args ?? []) as unknown[]).map((arg, i) => checkString(arg, at(`args[${i}]`), true, vars));
  const env = checkStringMap(entry.env, at('env'), (k) => at(`env.${k}`), ENV_NAME, 'a variable name (letters, digits, _)', vars);
  // A relative cwd is the file's: the file says where its servers live, wherever it is used from.
  const cwd = entry.cwd === undefined ? undefined : resolve(dirname(resolve(file)), checkString(entry.cwd, at('cwd')));
  return { kind: 'stdio', command, args, env, ...(cwd !== undefined ? { cwd } : {}) };
}

/** A problem in the file at a key, said as "file: key: must be …". */
class Problem {
  constructor(
    private readonly file: string,
    private readonly key: string,
  ) {}
  is(what: string): UsageError {
    return new UsageError(`${this.file}: ${this.key ? `${JSON.stringify(this.key)} ` : ''}must be ${what}`);
  }
  says(what: string): UsageError {
    return new UsageError(`${this.file}: ${this.key ? `${JSON.stringify(this.key)}: ` : ''}${what}`);
  }
}

/**
 * A string value; with `vars`, its `${…}` expanded from them (the keys the desktop clients
 * expand), else a `${` is refused: taken literally it would fail in a confusing way.
 */
function checkString(value: unknown, problem: Problem, emptyOk = false, vars?: NodeJS.ProcessEnv): string {
  if (typeof value !== 'string') throw problem.is(emptyOk ? 'a string' : 'a non-empty string');
  let expanded = value;
  if (vars) {
    try {
      expanded = expandVariables(value, vars);
    } catch (err) {
      if (err instanceof VariableError) throw problem.says(err.message);
      throw err;
    }
  } else if (value.includes('${')) {
    throw problem.is('a plain value: ${…} variables are not expanded here');
  }
  if (!emptyOk && expanded === '') throw problem.is(value === '' ? 'a non-empty string' : `a non-empty string (${value} expands to nothing)`);
  if (expanded.includes('\0')) throw problem.is('a string without NUL characters');
  return expanded;
}

function checkStringMap(
  value: unknown,
  whole: Problem,
  at: (key: string) => Problem,
  name: RegExp,
  what: string,
  vars: NodeJS.ProcessEnv,
): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw whole.is('an object of strings');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!name.test(k)) throw at(k).is(`named by ${what}`);
    out[k] = checkString(v, at(k), true, vars);
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
