import '../node.js';
import { ToolClient } from '../client.js';
import type { ClientTarget, EraPreference, ToolClientOptions } from '../types.js';
import { ConnectionError, ProtocolViolationError } from '../errors.js';
import { sanitize } from '../../io/sanitize.js';
import { connectFailureHint, withDoctorHint } from './hints.js';
import { storedAuthorization, withLoginHint } from './login.js';
import { withServerStderr } from './server-stderr.js';
import { parseTimeout, type ClientCommandOptions } from './target.js';
import { UsageError } from './usage-error.js';

// node.js (imported for its effect) lets ToolClient start `{ command }` targets.

/** Where warnings go: the CLI's stderr, the console's warning list. */
interface WarningOut {
  stderr(text: string): void;
}

const ERAS: readonly EraPreference[] = ['auto', 'modern', 'legacy'];

/** A server that has not answered the handshake by then is not going to (issue #17: a silent server made list wait 69 s). */
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * Connects the way every client command and the console do. One session shape whatever the
 * command (issue #17: list and call declared different capabilities, so they
 * saw different tool lists): elicitation is declared, answered by `extra.onInputRequest`
 * (the CLI's terminal, the console's page). HTTP servers get the
 * tokens `toolwright login` stored, refreshed as needed. `extra` adds what one
 * command needs (its own input handler, list-change callbacks).
 */
export async function connectClient(
  target: ClientTarget,
  options: ClientCommandOptions,
  io: WarningOut,
  version: string,
  extra: ToolClientOptions = {},
): Promise<ToolClient> {
  if (!ERAS.includes(options.era as EraPreference)) throw new UsageError(`--era must be one of ${ERAS.join(', ')}`);
  const connectTimeoutMs = parseMs(options.connectTimeout, '--connect-timeout') ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const authorization = extra.authorization ?? storedAuthorization(target, io);
  try {
    return await ToolClient.connect(target, {
      inputCapabilities: ['elicitation'],
      ...extra,
      ...(authorization ? { authorization } : {}),
      era: options.era as EraPreference,
      timeoutMs: parseTimeout(options.timeout),
      connectTimeoutMs,
      clientInfo: { name: 'toolwright-cli', version },
      onWarning: (message) => io.stderr(`toolwright: warning: ${sanitize(message)}\n`),
    });
  } catch (err) {
    // Whatever stopped the handshake, the server's stderr may say why.
    throw withDoctorHint(withServerStderr(connectFailureHint(forTheCommandLine(err, target), target), target), target);
  }
}

/** A client error, said in the command line's terms: the flag or command that fixes it. */
export function forTheCommandLine(err: unknown, target: ClientTarget): unknown {
  const hinted = withLoginHint(err, target);
  // The server went away or spoke nonsense: its stderr may say why (a tool's own error needs no stderr).
  if (hinted instanceof ConnectionError || hinted instanceof ProtocolViolationError) withServerStderr(hinted, target);
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
