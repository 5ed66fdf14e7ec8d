import { NO_RESOURCE_METADATA } from '../auth/discovery.js';
import { AuthorizationError, ConnectionError, ProtocolViolationError } from '../errors.js';
import type { ClientTarget } from '../types.js';

/** How a user sends an API key (a server's `server.auth.apiKeys` take them as bearer tokens). */
const KEY_HINT = "pass an API key with --header 'Authorization: Bearer <key>'";

/**
 * A failed connect, said with what to do about it (issue 21): a 404 at a path that is not /mcp
 * suggests /mcp (a hint only: the URL is the user's, it is not rewritten); a server that wants
 * credentials says how to send them; one that refuses the credentials sent says what it said.
 */
export function connectFailureHint(err: unknown, target: ClientTarget): unknown {
  if (!('url' in target)) return err;
  const url = new URL(String(target.url));
  const sentAuthorization = Object.keys(target.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
  if (err instanceof ConnectionError && err.reason === 'http' && err.httpStatus === 404 && url.pathname !== '/mcp') {
    err.message += `; nothing is served at ${url.pathname || '/'} (MCP servers are usually served at /mcp: try ${url.origin}/mcp)`;
    return err;
  }
  if (err instanceof AuthorizationError && err.oauthError === NO_RESOURCE_METADATA && !sentAuthorization) {
    return new AuthorizationError(
      `the server requires authorization: ${KEY_HINT} (it publishes no OAuth metadata, so toolwright login cannot sign in to it)`,
      NO_RESOURCE_METADATA,
      { cause: err },
    );
  }
  // Without an Authorization header of the user's, stored tokens answer a 401 (login.ts): only the user's own credentials reach here refused.
  if (err instanceof ConnectionError && err.reason === 'http' && (err.httpStatus === 401 || err.httpStatus === 403) && sentAuthorization) {
    return new AuthorizationError(
      `the server refused the credentials sent with --header Authorization (HTTP ${err.httpStatus})${err.detail ? `: ${err.detail}` : ''}`,
      undefined,
      { cause: err },
    );
  }
  return err;
}

// Kept beside the error (as server-stderr.ts keeps the stderr tail) for reportError to print as a line of its own.
const doctorHints = new WeakMap<object, string>();

/**
 * A connection that failed, for a reason the message may not make plain (refused, timed out,
 * an HTTP status, a server process that died), points to `toolwright doctor`, which checks it
 * step by step. Authorization failures already say what to do. A URL with a query or
 * credentials is not repeated: they may be secrets.
 */
export function withDoctorHint(err: unknown, target: ClientTarget): unknown {
  if (!(err instanceof ConnectionError || err instanceof ProtocolViolationError) || err instanceof AuthorizationError) return err;
  if ('url' in target) {
    const url = new URL(String(target.url));
    const shown = url.search || url.username || url.password ? '<url>' : url.href;
    doctorHints.set(err, `toolwright doctor ${shown}`);
  } else if ('command' in target) doctorHints.set(err, 'toolwright doctor -- <the same command>');
  return err;
}

/** The doctor command to suggest with `err`, if any. */
export function doctorHintOf(err: unknown): string | undefined {
  return err instanceof Error ? doctorHints.get(err) : undefined;
}
