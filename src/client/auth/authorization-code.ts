import { randomBytes, sha256, toBase64Url } from '../../io/bytes.js';
import { AuthorizationError } from '../errors.js';
import type { AuthorizationServer } from './types.js';
import { describe } from './urls.js';

/**
 * One authorization request's secrets, kept together (authorization index.mdx
 * "Authorization Response Validation": the expected issuer is recorded with
 * the PKCE verifier and the state).
 */
interface PendingAuthorization {
  url: URL;
  codeVerifier: string;
  state: string;
  /** The issuer of the validated metadata the request was built from. */
  issuer: string;
  issParameterSupported: boolean;
  redirectUri: string;
}

/**
 * security-considerations.mdx "Authorization Code Protection": PKCE support is
 * read from the metadata, and a server that does not advertise S256 (or has no
 * authorization endpoint) is refused before anything is registered or asked.
 */
export function requirePkce(server: AuthorizationServer): void {
  if (!server.authorizationEndpoint) throw new AuthorizationError(`the authorization server ${server.issuer} has no authorization_endpoint`);
  if (!server.codeChallengeMethods?.includes('S256')) {
    throw new AuthorizationError(
      `the authorization server ${server.issuer} does not advertise PKCE with S256 (code_challenge_methods_supported): refusing to authorize without it`,
    );
  }
}

/**
 * Builds the authorization request (OAuth 2.1 §4.1.1): PKCE with S256 only
 * (security-considerations.mdx: a server that does not advertise it is
 * refused), a fresh state, and the resource (RFC 8707) on it.
 */
export async function startAuthorization(
  server: AuthorizationServer,
  options: { clientId: string; redirectUri: string; resource: string; scope?: string },
): Promise<PendingAuthorization> {
  requirePkce(server);
  const codeVerifier = toBase64Url(randomBytes(32));
  const state = toBase64Url(randomBytes(24));
  const url = new URL(server.authorizationEndpoint!); // requirePkce checked it is there
  const params = url.searchParams;
  params.set('response_type', 'code');
  params.set('client_id', options.clientId);
  params.set('redirect_uri', options.redirectUri);
  params.set('code_challenge', toBase64Url(await sha256(codeVerifier)));
  params.set('code_challenge_method', 'S256');
  params.set('state', state);
  params.set('resource', options.resource);
  if (options.scope) params.set('scope', options.scope);
  return { url, codeVerifier, state, issuer: server.issuer, issParameterSupported: server.issParameterSupported, redirectUri: options.redirectUri };
}

/**
 * Checks the authorization response before its code goes anywhere: it came
 * back to our redirect URI, with our state, from the issuer we asked (RFC 9207
 * §2.4 as the spec's table applies it: a present `iss` must equal the recorded
 * issuer by simple string comparison, with no normalization; an absent one is
 * refused when the server advertised it). Only then is an `error` believed.
 * Returns the code.
 */
export function readAuthorizationResponse(pending: PendingAuthorization, redirect: string | URL): string {
  let url: URL;
  try {
    url = new URL(String(redirect));
  } catch {
    throw new AuthorizationError('the authorization response is not a URL');
  }
  const expected = new URL(pending.redirectUri);
  if (url.origin !== expected.origin || url.pathname !== expected.pathname) {
    throw new AuthorizationError('the authorization response did not come back to the redirect URI');
  }
  // A response may carry its parameters in the query (default) or, if a server insists, nowhere else.
  const params = url.searchParams;
  if (params.get('state') !== pending.state) throw new AuthorizationError('the authorization response does not carry the state of this request: ignored');
  const iss = params.get('iss');
  if (iss !== null && iss !== pending.issuer) {
    throw new AuthorizationError(`the authorization response names issuer ${describe(iss)}, not ${describe(pending.issuer)} (RFC 9207): ignored`);
  }
  if (iss === null && pending.issParameterSupported) {
    throw new AuthorizationError(`the authorization response carries no iss, though ${describe(pending.issuer)} says it always does (RFC 9207): ignored`);
  }
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description');
    throw new AuthorizationError(
      `authorization was refused: ${describe(error).slice(1, -1)}${description ? ` (${describe(description).slice(1, -1)})` : ''}`,
      error.slice(0, 100),
    );
  }
  const code = params.get('code');
  if (!code) throw new AuthorizationError('the authorization response carries no code');
  return code;
}
