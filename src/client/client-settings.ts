import type { JsonRpcNotification } from '../jsonrpc/types.js';
import { isPlainObject } from '../protocol/content.js';
import { isLogLevel, LOG_LEVELS, type ClientCapabilities, type LogLevel } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import type { ClientSession } from './session.js';
import type { Progress } from './types.js';
import { readProgress } from './tool-call.js';

/** Sends one request through the client (its middleware, its session renewal). */
type Rpc = (method: string, params: Record<string, unknown>) => Promise<unknown>;

/**
 * Which server log messages the client receives from now on. Legacy: `logging/setLevel`
 * (2025-11-25 server/utilities/logging.mdx). Modern: there is no such request; the level rides
 * in each request's `_meta` as `io.modelcontextprotocol/logLevel`, and the server MUST NOT send
 * `notifications/message` for a request without it (2026-07-28 logging.mdx "Per-request log
 * level"), so the session carries it on every request it sends after this.
 */
export async function changeLogLevel(session: ClientSession, level: LogLevel, rpc: Rpc): Promise<void> {
  if (!isLogLevel(level)) throw new TypeError(`the log level must be one of ${LOG_LEVELS.join(', ')}`);
  session.identity.logLevel = level;
  // A renewed legacy session asks again at its handshake (handshake.ts), with the level kept here.
  if (session.wire.era === 'legacy') await rpc(Method.setLogLevel, { level });
}

/**
 * Tells the server the roots changed: `notifications/roots/list_changed`, which a client that
 * declared `roots.listChanged` MUST send (2025-11-25 client/roots.mdx "Root List Changes").
 * A modern server asks for roots inside the request that needs them (the notification was
 * removed in 2026-07-28), so there is nothing to send.
 */
export async function announceRootsChanged(session: ClientSession, declared: ClientCapabilities | undefined): Promise<boolean> {
  const roots = declared?.roots;
  if (session.wire.era !== 'legacy' || !isPlainObject(roots) || roots.listChanged !== true) return false;
  await session.notify('notifications/roots/list_changed');
  return true;
}

/** A notification that came with a request: progress to `onProgress` (kept from throwing), the rest to the client's listeners. */
export function routeRequestNotification(
  n: JsonRpcNotification,
  onProgress: ((p: Progress) => void) | undefined,
  others: (n: JsonRpcNotification) => void,
  warn: (message: string) => void,
): void {
  if (n.method !== Method.progress) return void others(n);
  const progress = onProgress && readProgress(n.params);
  if (!progress) return;
  try {
    onProgress(progress);
  } catch (err) {
    warn(`the onProgress callback threw: ${(err as Error).message}`);
  }
}
