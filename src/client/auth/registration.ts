import { AuthorizationError } from '../errors.js';
import { oauthErrorText, requestJson } from './http.js';
import type { AuthorizationServer, ClientRegistration, OAuthOptions, TokenEndpointAuthMethod, TokenStore } from './types.js';
import { describe } from './urls.js';

const AUTH_METHODS: readonly TokenEndpointAuthMethod[] = ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'];

/**
 * The client's identity at this authorization server, by the spec's priority
 * (client-registration.mdx): pre-registered credentials, then a Client ID
 * Metadata Document where the server supports them, then dynamic registration
 * (RFC 7591) where it allows it, kept per issuer so it is reused next time and
 * never shown to another authorization server ("Authorization Server Binding").
 */
export async function clientFor(
  server: AuthorizationServer,
  options: OAuthOptions,
  store: TokenStore,
  context: { redirectUri?: string; fetch: typeof fetch; signal?: AbortSignal },
): Promise<ClientRegistration> {
  if (options.clientId !== undefined) {
    if (options.clientIssuer !== undefined && options.clientIssuer !== server.issuer) {
      throw new AuthorizationError(
        `the client ${describe(options.clientId)} is registered with ${describe(options.clientIssuer)}, but this server now uses the authorization server ${describe(server.issuer)}: refusing to use its credentials there`,
      );
    }
    return {
      clientId: options.clientId,
      ...(options.clientSecret !== undefined ? { clientSecret: options.clientSecret } : {}),
      ...(options.tokenEndpointAuthMethod ? { tokenEndpointAuthMethod: options.tokenEndpointAuthMethod } : {}),
      kind: 'pre-registered',
    };
  }
  if ((options.grantType ?? 'authorization_code') !== 'authorization_code') {
    throw new AuthorizationError(`${options.grantType} needs a pre-registered clientId`);
  }
  if (options.clientMetadataUrl !== undefined && server.clientIdMetadataDocumentSupported) {
    return { clientId: metadataDocumentUrl(options.clientMetadataUrl), tokenEndpointAuthMethod: 'none', kind: 'metadata-document' };
  }
  const stored = await store.loadClient(server.issuer);
  if (stored?.kind === 'dynamic' && usable(stored, context.redirectUri)) return stored;
  if (!server.registrationEndpoint) {
    throw new AuthorizationError(
      `the authorization server ${describe(server.issuer)} offers no dynamic registration${options.clientMetadataUrl === undefined && server.clientIdMetadataDocumentSupported ? ' (it takes Client ID Metadata Documents: give a clientMetadataUrl)' : ''}: give the client ID registered there (clientId)`,
    );
  }
  const registered = await register(server, options, context);
  await store.saveClient(server.issuer, registered);
  return registered;
}

/** draft-ietf-oauth-client-id-metadata-document: the client_id is an https URL with a path. */
function metadataDocumentUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AuthorizationError(`clientMetadataUrl is not a URL: ${describe(value)}`);
  }
  if (url.protocol !== 'https:' || url.pathname === '/' || url.hash || url.username || url.password) {
    throw new AuthorizationError(`clientMetadataUrl must be an https URL with a path, no fragment and no credentials: ${describe(value)}`);
  }
  return value;
}

function usable(client: ClientRegistration, redirectUri: string | undefined): boolean {
  if (client.clientSecretExpiresAt && client.clientSecretExpiresAt * 1000 <= Date.now()) return false;
  return redirectUri === undefined || (client.redirectUris ?? []).some((registered) => sameRedirect(registered, redirectUri));
}

/**
 * Whether a registered redirect URI serves for this one. A loopback one
 * matches on any port (RFC 8252 §7.3: the authorization server MUST allow any
 * port), so a CLI's listener on a fresh port each time keeps its registration.
 */
function sameRedirect(registered: string, wanted: string): boolean {
  if (registered === wanted) return true;
  try {
    const a = new URL(registered);
    const b = new URL(wanted);
    const loopbackIp = (u: URL) => u.protocol === 'http:' && (u.hostname === '127.0.0.1' || u.hostname === '[::1]');
    return loopbackIp(a) && loopbackIp(b) && a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search;
  } catch {
    return false;
  }
}

async function register(
  server: AuthorizationServer,
  options: OAuthOptions,
  context: { redirectUri?: string; fetch: typeof fetch; signal?: AbortSignal },
): Promise<ClientRegistration> {
  const supported = server.tokenEndpointAuthMethods;
  // A native app cannot keep a secret: ask to be a public client unless the server allows none of that.
  const method: TokenEndpointAuthMethod =
    !supported || supported.includes('none') ? 'none' : supported.includes('client_secret_basic') ? 'client_secret_basic' : 'client_secret_post';
  const redirectUris = context.redirectUri ? [context.redirectUri] : [];
  const request = {
    client_name: 'toolwright',
    ...options.clientMetadata,
    redirect_uris: redirectUris,
    // SEP-2207: a client that wants refresh tokens says so in its grant types.
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: method,
    // client-registration.mdx: MUST give an appropriate application_type (OIDC defaults to "web").
    application_type: options.applicationType ?? 'native',
  };
  const { status, body } = await requestJson(context.fetch, new URL(server.registrationEndpoint!), {
    method: 'POST',
    body: JSON.stringify(request),
    headers: { 'content-type': 'application/json' },
    signal: context.signal,
  });
  if ((status !== 201 && status !== 200) || !body || typeof body.client_id !== 'string' || !body.client_id) {
    const refusal = oauthErrorText(body, status);
    throw new AuthorizationError(`dynamic client registration at ${describe(server.issuer)} failed: ${refusal.text}`, refusal.code);
  }
  const granted = AUTH_METHODS.find((m) => m === body.token_endpoint_auth_method);
  const secret = typeof body.client_secret === 'string' && body.client_secret ? body.client_secret : undefined;
  return {
    clientId: body.client_id.slice(0, 2048),
    ...(secret ? { clientSecret: secret } : {}),
    ...(typeof body.client_secret_expires_at === 'number' && body.client_secret_expires_at > 0 ? { clientSecretExpiresAt: body.client_secret_expires_at } : {}),
    // The server's answer decides (RFC 7591 §3.2.1 echoes what it registered); without one, the token request picks.
    ...(granted ? { tokenEndpointAuthMethod: granted } : {}),
    redirectUris: Array.isArray(body.redirect_uris) && body.redirect_uris.every((u) => typeof u === 'string') ? (body.redirect_uris as string[]) : redirectUris,
    kind: 'dynamic',
  };
}
