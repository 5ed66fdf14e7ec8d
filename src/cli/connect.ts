import { ToolClient } from '../client/client.js';
import type { ClientTarget, EraPreference, ToolClientOptions } from '../client/types.js';
import { ConnectionError } from '../client/errors.js';
import { UsageError, type CliIo } from './errors.js';
import { storedAuthorization, withLoginHint } from './login.js';
import { cliInputHandler } from './prompt.js';

/** Options every client command shares. */
export interface ClientCommandOptions {
  era: string;
  timeout?: string;
  /** How long connecting may take (default 10 s). */
  connectTimeout?: string;
  header: string[];
  json?: boolean;
  verbose?: boolean;
}

const ERAS: readonly EraPreference[] = ['auto', 'modern', 'legacy'];

/**
 * The server a command talks to: an http(s) URL operand, or the command
 * given after `--` (spawned over stdio). Exactly one of them.
 */
export function resolveTarget(url: string | undefined, command: string[], options: ClientCommandOptions): ClientTarget {
  if (url !== undefined && command.length) throw new UsageError('give either a server URL or a command after --, not both');
  if (command.length) {
    if (options.header.length) throw new UsageError('--header applies to HTTP servers only');
    // The user's own shell environment: this is their server, started on their behalf.
    return { command: command[0], args: command.slice(1), inheritEnv: true, stderr: options.verbose ? 'inherit' : 'ignore' };
  }
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

/** A server that has not answered the handshake by then is not going to (issue #17: a silent server made list wait 69 s). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * Connects the way every client command does. One session shape whatever the
 * command (issue #17: list and call declared different capabilities, so they
 * saw different tool lists): elicitation is declared, answered at the
 * terminal unless the command brings its own answerer. HTTP servers get the
 * tokens `toolwright login` stored, refreshed as needed. `extra` adds what one
 * command needs (its own input handler, list-change callbacks).
 */
export async function connectClient(target: ClientTarget, options: ClientCommandOptions, io: CliIo, version: string, extra: ToolClientOptions = {}): Promise<ToolClient> {
  if (!ERAS.includes(options.era as EraPreference)) throw new UsageError(`--era must be one of ${ERAS.join(', ')}`);
  const connectTimeoutMs = parseMs(options.connectTimeout, '--connect-timeout') ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const authorization = extra.authorization ?? storedAuthorization(target, io);
  try {
    return await ToolClient.connect(target, {
      onInputRequest: cliInputHandler(io),
      inputCapabilities: ['elicitation'],
      ...extra,
      ...(authorization ? { authorization } : {}),
      era: options.era as EraPreference,
      timeoutMs: parseTimeout(options.timeout),
      connectTimeoutMs,
      clientInfo: { name: 'toolwright-cli', version },
      onWarning: (message) => io.stderr(`toolwright: warning: ${message}\n`),
    });
  } catch (err) {
    throw forTheCommandLine(err, target);
  }
}

/** A client error, said in the command line's terms: the flag or command that fixes it. */
export function forTheCommandLine(err: unknown, target: ClientTarget): unknown {
  const hinted = withLoginHint(err, target);
  if (hinted instanceof Error && hinted.message.includes('connect with era "auto"')) {
    hinted.message = hinted.message.replace(/connect with era "auto" \(detects it\) or "legacy"/, 'try --era auto (it detects the era) or --era legacy');
  }
  if (hinted instanceof ConnectionError && hinted.reason === 'connect-timeout') {
    hinted.message += ' (--connect-timeout gives it longer)';
  }
  return hinted;
}

function parseMs(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) throw new UsageError(`${flag} must be a positive number of milliseconds, got ${JSON.stringify(value)}`);
  return ms;
}
