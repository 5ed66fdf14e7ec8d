import { LoopbackRedirect, openBrowser } from '../client/auth/loopback.js';
import { OAuthClient } from '../client/auth/oauth-client.js';
import { FileTokenStore } from '../client/auth/file-token-store.js';
import type { AuthorizationPrompt, OAuthOptions } from '../client/auth/types.js';
import { canonicalResource } from '../client/auth/urls.js';
import { AuthorizationError } from '../client/errors.js';
import type { ClientTarget } from '../client/types.js';
import { ExitCode, UsageError, type CliIo } from './errors.js';
import { sanitize } from './sanitize.js';

export interface LoginOptions {
  scope?: string;
  port?: string;
  browser?: boolean;
  clientId?: string;
  clientSecretEnv?: string;
  clientMetadataUrl?: string;
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
 * The browser flow with a loopback redirect listener on 127.0.0.1, the tokens stored where
 * list, call, connect and the console find them. `onPrompt` shows the person where to sign
 * in (the CLI opens a browser; the console shows a link on its page).
 */
export async function logIn(
  server: string,
  options: Pick<LoginOptions, 'scope' | 'clientId' | 'clientSecretEnv' | 'clientMetadataUrl'>,
  how: { version: string; port?: number; signal: AbortSignal; onPrompt: (prompt: AuthorizationPrompt) => void; onWarning: (message: string) => void },
): Promise<{ oauth: OAuthClient; tokens: Awaited<ReturnType<OAuthClient['login']>> }> {
  const loopback = await LoopbackRedirect.listen({
    ...(how.port !== undefined ? { port: how.port } : {}),
    onPrompt: how.onPrompt,
  }).catch((err: unknown) => {
    throw new UsageError(`could not listen on 127.0.0.1${how.port !== undefined ? `:${how.port}` : ''} for the browser's return: ${(err as Error).message}`);
  });
  try {
    const oauth = new OAuthClient(server, {
      ...identity(options),
      clientMetadata: { client_name: 'toolwright', software_id: 'toolwright', software_version: how.version },
      redirectUri: loopback.redirectUri,
      authorize: loopback.authorize,
      store: new FileTokenStore(),
      onWarning: how.onWarning,
    });
    const tokens = await oauth.login({ ...(options.scope ? { scope: options.scope } : {}), signal: how.signal });
    return { oauth, tokens };
  } finally {
    await loopback.close();
  }
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

/**
 * The authorization list, call and connect use for an HTTP server: the stored
 * tokens, refreshed as needed. They never open a browser: when a server needs
 * a login (or a wider scope), the error says to run `toolwright login`. None
 * when the user gives an Authorization header of their own.
 */
export function storedAuthorization(target: ClientTarget, io: CliIo): OAuthClient | undefined {
  if (!('url' in target)) return undefined;
  if (Object.keys(target.headers ?? {}).some((h) => h.toLowerCase() === 'authorization')) return undefined;
  return new OAuthClient(target.url, { store: new FileTokenStore(), onWarning: (message) => io.stderr(`toolwright: warning: ${message}\n`) });
}

/** A login the CLI cannot do on its own becomes the command that does it. */
export function withLoginHint(err: unknown, target: ClientTarget): unknown {
  if (!(err instanceof AuthorizationError) || err.oauthError !== 'login_required' || !('url' in target)) return err;
  const url = String(target.url);
  const scope = err.scope ? ` --scope ${shellQuote(err.scope)}` : '';
  return new AuthorizationError(
    `${canonicalResource(new URL(url))} needs you to log in${err.scope ? ` with scope ${sanitize(err.scope)}` : ''}: run toolwright login ${shellQuote(url)}${scope}`,
    'login_required',
    { cause: err },
  );
}

function identity(options: Pick<LoginOptions, 'clientId' | 'clientSecretEnv' | 'clientMetadataUrl'>): Partial<OAuthOptions> {
  if (options.clientSecretEnv !== undefined && options.clientId === undefined) throw new UsageError('--client-secret-env goes with --client-id');
  const secret = options.clientSecretEnv === undefined ? undefined : process.env[options.clientSecretEnv];
  if (options.clientSecretEnv !== undefined && !secret)
    throw new UsageError(`the environment variable ${options.clientSecretEnv} (--client-secret-env) is not set`);
  return {
    ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
    ...(secret ? { clientSecret: secret } : {}),
    ...(options.clientMetadataUrl !== undefined ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
  };
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

export function serverUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`not a URL: ${JSON.stringify(sanitize(url))}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`login is for http(s):// servers (stdio servers take credentials from their environment), got ${parsed.protocol}`);
  return parsed.href;
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

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
