import { openBrowser } from '../client/auth/loopback.js';
import { startConsole } from '../console/server/listen.js';
import type { ConsoleTarget } from '../console/server/session.js';
import type { ClientCommandOptions } from '../client/connect/target.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';
import { sanitize } from '../io/sanitize.js';

export interface ConsoleOptions extends ClientCommandOptions {
  port?: string;
  /** commander's `--no-open`: false when given. */
  open: boolean;
}

/**
 * `toolwright console [<url> | @name | -- <command> args…]`: the web console on 127.0.0.1.
 * The first line on stdout is the page's URL with its token (scripts and tests read it); the
 * browser is opened on it unless --no-open. Runs until SIGINT/SIGTERM.
 */
export async function consoleCommand(operand: string | undefined, command: string[], options: ConsoleOptions, io: CliIo, version: string): Promise<number> {
  const port = parsePort(options.port);
  const target: ConsoleTarget | undefined =
    operand !== undefined || command.length ? { kind: 'command-line', ...(operand !== undefined ? { operand } : {}), command, options } : undefined;
  const running = await startConsole({
    version,
    port,
    ...(target ? { target } : {}),
    onError: (err) => io.stderr(`toolwright console: ${sanitize(err instanceof Error ? err.message : String(err))}\n`),
  });
  io.stdout(`${running.url}\n`);
  io.stderr('toolwright console: serving on 127.0.0.1 only; anyone with the URL above (its token) can use it. Ctrl-C stops it.\n');
  if (options.open && !(await openBrowser(running.url).catch(() => false))) io.stderr('toolwright console: no browser could be opened: open the URL above.\n');
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await running.close();
  return ExitCode.ok;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a port number (0-65535; 0 picks a free one), got ${JSON.stringify(value)}`);
  return port;
}
