import type { ClientCommandOptions } from '../../client/connect/target.js';
import type { ConsoleTarget } from './target.js';

/** The server as a `toolwright` command line names it: a URL or `@name` operand, or a command after `--`, and flags. */
export interface CommandLineTarget {
  operand?: string;
  command: string[];
  flags: string[];
}

/** Header and variable names whose values are secrets: the command shows `<redacted>` instead. */
const SECRET_NAME = /auth|cookie|token|secret|key|session|password|passwd|credential/i;
const REDACTED = '<redacted>';

/** How the command line reaches the console's server, secrets left out. */
export function commandLineTarget(target: ConsoleTarget): CommandLineTarget {
  if (target.kind === 'transport') return { operand: '<server-url>', command: [], flags: [] };
  if (target.kind === 'command-line') return { operand: target.operand, command: target.command, flags: clientFlags(target.options) };
  const { url, server, command, args, headers, env, cwd, era } = target.request;
  const flags = clientFlags({
    era: era ?? 'auto',
    header: Object.entries(headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    env: Object.entries(env ?? {}).map(([name, value]) => `${name}=${value}`),
    ...(cwd ? { cwd } : {}),
  });
  return { ...(server ? { operand: `@${server}` } : url ? { operand: url } : {}), command: command ? [command, ...(args ?? [])] : [], flags };
}

function clientFlags(options: ClientCommandOptions): string[] {
  const flags: string[] = [];
  if (options.era && options.era !== 'auto') flags.push('--era', options.era);
  for (const header of options.header ?? []) {
    const colon = header.indexOf(':');
    const name = colon === -1 ? header : header.slice(0, colon);
    flags.push('--header', SECRET_NAME.test(name) ? `${name}: ${REDACTED}` : header);
  }
  for (const pair of options.env ?? []) {
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    flags.push('-e', SECRET_NAME.test(name) ? `${name}=${REDACTED}` : pair);
  }
  if (options.cwd) flags.push('--cwd', options.cwd);
  if (options.serversFile) flags.push('--servers-file', options.serversFile);
  return flags;
}

/**
 * The `toolwright` command that sends the same request, for the requests the CLI makes
 * (call, list, resources, read, prompts, prompt, skills); undefined for the rest. Every word
 * is quoted for a POSIX shell.
 */
export function equivalentCommand(target: CommandLineTarget, method: string, params: Record<string, unknown>): string | undefined {
  const words = commandWords(method, params);
  if (!words) return undefined;
  const [subcommand, ...operands] = words;
  const server = target.command.length ? [] : [target.operand ?? '<server-url>'];
  const line = ['toolwright', subcommand, ...server, ...operands, ...target.flags, ...(target.command.length ? ['--', ...target.command] : [])];
  return line.map(shellQuote).join(' ');
}

function commandWords(method: string, params: Record<string, unknown>): string[] | undefined {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  switch (method) {
    case 'tools/call': {
      const name = text(params.name);
      if (!name) return undefined;
      const args = params.arguments;
      const given = args && typeof args === 'object' && Object.keys(args).length > 0;
      return ['call', name, ...(given ? ['--args', JSON.stringify(args)] : [])];
    }
    case 'tools/list':
      return ['list'];
    case 'resources/list':
      return ['resources'];
    case 'resources/read':
      return text(params.uri) ? ['read', text(params.uri) as string] : undefined;
    case 'prompts/list':
      return ['prompts'];
    case 'prompts/get': {
      const name = text(params.name);
      const args = params.arguments && typeof params.arguments === 'object' ? Object.entries(params.arguments) : [];
      return name ? ['prompt', name, ...args.map(([key, value]) => `${key}=${String(value)}`)] : undefined;
    }
    case 'skills/list':
      return ['skills'];
    default:
      return undefined;
  }
}

/** One word for a POSIX shell: bare when it is plainly safe, otherwise single-quoted (a `'` inside as `'\''`). */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
