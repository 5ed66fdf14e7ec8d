import { FileTokenStore } from '../auth/file-token-store.js';
import { LoopbackRedirect } from '../auth/loopback.js';
import { OAuthClient } from '../auth/oauth-client.js';
import type { AuthorizationPrompt, OAuthOptions } from '../auth/types.js';
import { canonicalResource } from '../auth/urls.js';
import { AuthorizationError } from '../errors.js';
import type { ClientTarget } from '../types.js';
import { sanitize } from '../../io/sanitize.js';
import { UsageError } from './usage-error.js';

/** Who signs in, and for what: `toolwright login`'s options and the console's login form. */
export interface LoginIdentity {
  scope?: string;
  clientId?: string;
  clientSecretEnv?: string;
  clientMetadataUrl?: string;
}

/** Where stored tokens' warnings go (the CLI's stderr; the console's warning list). */
interface WarningOut {
  stderr(text: string): void;
}

/**
 * The browser flow with a loopback redirect listener on 127.0.0.1, the tokens stored where
 * list, call, connect and the console find them. `onPrompt` shows the person where to sign
 * in (the CLI opens a browser; the console shows a link on its page).
 */
export async function logIn(
  server: string,
  options: LoginIdentity,
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
 * The authorization list, call and connect use for an HTTP server: the stored
 * tokens, refreshed as needed. They never open a browser: when a server needs
 * a login (or a wider scope), the error says to run `toolwright login`. None
 * when the user gives an Authorization header of their own.
 */
export function storedAuthorization(target: ClientTarget, io: WarningOut): OAuthClient | undefined {
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

function identity(options: LoginIdentity): Partial<OAuthOptions> {
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

/** `url` as an http(s) server URL, or a UsageError saying why not. */
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

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
