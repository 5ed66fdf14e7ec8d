import { openBrowser } from '../client/auth/loopback.js';
import { OAuthClient } from '../client/auth/oauth-client.js';
import { FileTokenStore } from '../client/auth/file-token-store.js';
import type { AuthorizationPrompt } from '../client/auth/types.js';
import { canonicalResource } from '../client/auth/urls.js';
import { logIn, serverUrl, type LoginIdentity } from '../client/connect/login.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';
import { sanitize } from '../io/sanitize.js';

export interface LoginOptions extends LoginIdentity {
  port?: string;
  browser?: boolean;
  timeout?: string;
}

/** A person signs in within this, unless --timeout says otherwise. */
const LOGIN_TIMEOUT_MS = 5 * 60_000;

/**
 * `toolwright login <url>`: the browser flow of the authorization spec, with
 * a loopback redirect listener on 127.0.0.1. The browser is opened when one
 * can be; the URL is printed either way. Tokens go to the user's config
 * directory (FileTokenStore: mode 0600), where list, call and connect find
 * and refresh them. Nothing secret is printed.
 */
export async function loginCommand(url: string, options: LoginOptions, io: CliIo, version: string): Promise<number> {
  const server = serverUrl(url);
  const timeoutMs = positive(options.timeout, '--timeout') ?? LOGIN_TIMEOUT_MS;
  const port = options.port === undefined ? undefined : portNumber(options.port);
  const { oauth, tokens } = await logIn(server, options, {
    version,
    ...(port !== undefined ? { port } : {}),
    signal: AbortSignal.timeout(timeoutMs),
    onPrompt: (prompt) => void showPrompt(prompt, options.browser !== false, io),
    onWarning: (message) => io.stderr(`toolwright: warning: ${message}\n`),
  });
  const scope = tokens.scope ? `; scope: ${sanitize(tokens.scope)}` : '';
  const refresh = tokens.refreshToken ? '; it will be refreshed as needed' : '; no refresh token was issued, so log in again when it expires';
  io.stderr(`toolwright: logged in to ${oauth.server} (authorization server ${sanitize(tokens.issuer)}${scope})${refresh}\n`);
  return ExitCode.ok;
}

/**
 * `toolwright logout <url>`: revokes the tokens stored for the server where its authorization
 * server offers revocation (RFC 7009), and forgets them.
 */
export async function logoutCommand(url: string, io: CliIo): Promise<number> {
  const server = canonicalResource(new URL(serverUrl(url)));
  const oauth = new OAuthClient(server, { store: new FileTokenStore(), onWarning: (message) => io.stderr(`toolwright: warning: ${message}\n`) });
  const { removed, revoked } = await oauth.logout();
  if (!removed) io.stderr(`toolwright: no stored tokens for ${server}\n`);
  else if (revoked) io.stderr(`toolwright: logged out of ${server} (its tokens are revoked and deleted)\n`);
  else
    io.stderr(
      `toolwright: logged out of ${server} (its stored tokens are deleted; the authorization server offers no revocation, so it may honour them until they expire)\n`,
    );
  return ExitCode.ok;
}

async function showPrompt(prompt: AuthorizationPrompt, tryBrowser: boolean, io: CliIo): Promise<void> {
  const opened = tryBrowser && (await openBrowser(prompt.url.href));
  io.stderr(
    opened
      ? `toolwright: sign in to ${sanitize(prompt.issuer)} in the browser window that opened. If none did, open:\n  ${prompt.url.href}\n`
      : `toolwright: to log in, open this URL in a browser and sign in to ${sanitize(prompt.issuer)}:\n  ${prompt.url.href}\n`,
  );
  io.stderr(`toolwright: waiting for the browser to come back to ${prompt.redirectUri} (Ctrl-C to give up)…\n`);
}

function positive(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} must be a positive number of milliseconds, got ${JSON.stringify(value)}`);
  return n;
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--port must be a port number (0 picks a free one), got ${JSON.stringify(value)}`);
  return n;
}
