import { ConnectionError } from './errors.js';
import type { ClientTransport } from './transport.js';

/** After the connect timeout ran out, how long a stdio server gets at each step of its shutdown (stdin closed, SIGTERM). */
export const CONNECT_TIMEOUT_CLOSE_GRACE_MS = 100;

/**
 * The handshake within `connectTimeoutMs`: a server that never answers (a
 * stdio program that is not an MCP server, an HTTP endpoint that hangs) fails
 * the connection, saying what was waited for, instead of hanging.
 */
export async function withinConnectTimeout<T>(handshaking: Promise<T>, ms: number, asked: string[], transport: ClientTransport): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const waiting = asked.at(-1) ?? 'the connection';
      const before = asked.length > 1 ? ` (it did not answer ${asked.slice(0, -1).join(', ')} either)` : '';
      const stdio = transport.kind === 'stdio' ? '; is the command an MCP server that speaks JSON-RPC on its stdout?' : '';
      const stderr = transport.capturedStderr?.();
      reject(
        new ConnectionError(
          `the server did not answer within ${ms} ms while connecting: no answer to ${waiting}${before}${stdio}`,
          'connect-timeout',
          stderr ? { stderr } : {},
        ),
      );
    }, ms);
  });
  handshaking.catch(() => {}); // after a timeout, its own failure is moot
  try {
    return await Promise.race([handshaking, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
