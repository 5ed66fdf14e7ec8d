import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { ToolClient } from '../client.js';
import { AuthorizationError, ConnectionError } from '../errors.js';
import type { StdioTarget } from '../transports/stdio-target.js';
import type { ClientTarget } from '../types.js';
import { bounded, clean, messageOf } from './clean.js';
import type { StepLog } from './steps.js';
import { checkUpstreams } from './upstreams.js';
import type { DoctorOptions } from './types.js';

/** Connects for real: the era negotiated and the tools listed. */
export async function checkSession(log: StepLog, target: ClientTarget, options: DoctorOptions, timeoutMs: number, stderr?: () => string): Promise<boolean> {
  let client: ToolClient | undefined;
  const era = await log.run('era', async () => {
    try {
      const connecting = ToolClient.connect(target, {
        era: options.era ?? 'auto',
        connectTimeoutMs: timeoutMs,
        timeoutMs,
        clientInfo: { name: 'toolwright-doctor', version: '1' },
        ...(options.authorization ? { authorization: options.authorization } : {}),
      });
      // A client that connects after the bound gave up on it is closed, not left running (a stdio child).
      client = await bounded(timeoutMs + 1_000, 'the handshake', () => connecting).catch((err: unknown) => {
        connecting.then((late) => late.close()).catch(() => {});
        throw err;
      });
      const info = client.serverInfo;
      return {
        step: {
          status: 'ok',
          summary: `${client.era} era, protocol ${clean(client.protocolVersion ?? '?', 40)}${info ? `, server ${clean(info.name, 80)} ${clean(info.version ?? '', 40)}` : ''}`,
        },
      };
    } catch (err) {
      const tail = stderr?.();
      return {
        step: {
          status: 'failed',
          summary: 'the handshake failed',
          detail: [messageOf(err), tail ? `stderr: ${tail}` : ''].filter(Boolean).join('\n'),
          hint: handshakeHint(err, target, options),
        },
      };
    }
  });
  if (!era.ok || !client) {
    log.skip('tools', 'not connected');
    await client?.close();
    return false;
  }
  const connected = client;
  const tools = await log.run('tools', async () => {
    try {
      const listed = await bounded(timeoutMs, 'tools/list', () => connected.listTools());
      return { step: { status: 'ok', summary: `${listed.length} tool${listed.length === 1 ? '' : 's'} listed` } };
    } catch (err) {
      return { step: { status: 'failed', summary: 'tools/list failed', detail: messageOf(err) } };
    }
  });
  if (tools.ok) await checkUpstreams(log, connected, timeoutMs);
  await connected.close().catch(() => {});
  return tools.ok;
}

/** The spawn step: the command resolves (a path, or a name on PATH). */
export async function checkCommand(log: StepLog, target: StdioTarget): Promise<boolean> {
  const result = await log.run('spawn', async () => {
    const found = await findCommand(target.command, target.env?.PATH ?? process.env.PATH ?? '', target.cwd);
    if (found) return { step: { status: 'ok', summary: `${clean(target.command, 200)} is ${clean(found, 300)}` } };
    return {
      step: {
        status: 'failed',
        summary: `command not found: ${clean(target.command, 200)}`,
        hint: target.command.includes('/') ? 'check the path, and that the file is executable' : 'install it, or give its full path (it is not on PATH)',
      },
    };
  });
  return result.ok;
}

async function findCommand(command: string, path: string, cwd: string | undefined): Promise<string | undefined> {
  const candidates =
    command.includes('/') || isAbsolute(command)
      ? [isAbsolute(command) ? command : join(cwd ?? process.cwd(), command)]
      : path
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      await access(candidate, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/** The target with its stderr captured for the report (bounded, cleaned). */
export function capturing(target: StdioTarget): { target: StdioTarget; tail: () => string } {
  let text = '';
  const next: StdioTarget = { ...target, stderr: 'capture', onStderr: (chunk) => (text = (text + chunk).slice(-4096)) };
  return {
    target: next,
    tail: () =>
      text
        .split('\n')
        .map((line) => clean(line, 300))
        .filter(Boolean)
        .slice(-10)
        .join('\n'),
  };
}

/** What to try when the handshake failed, by how it failed. */
function handshakeHint(err: unknown, target: ClientTarget, options: DoctorOptions): string {
  if (err instanceof AuthorizationError)
    return 'url' in target ? `sign in with toolwright login ${String(target.url)}, or send credentials with --header` : 'send credentials';
  if (err instanceof ConnectionError && err.reason === 'exit')
    return 'the server process ended: its stderr above says why (a missing setting, a crash at start-up)';
  if (err instanceof ConnectionError && err.reason === 'connect-timeout')
    return 'command' in target
      ? 'the server never answered: is it an MCP server over stdio, and does it keep its logs off stdout?'
      : 'the server never answered the handshake: is it overloaded, or is a proxy holding the request?';
  if (options.era && options.era !== 'auto') return 'the server may speak the other era: try --era auto';
  return 'the server answered, but not as an MCP server would: check it is one, and its version';
}
