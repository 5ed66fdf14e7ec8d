import { AuthorizationError } from '../errors.js';
import { readAuthorizationResponse, requirePkce, startAuthorization } from './authorization-code.js';
import { clientFor } from './registration.js';
import { JWT_BEARER, type TokenGrant } from './token-endpoint.js';
import type { AssertionTarget, AuthorizationServer, ClientRegistration, OAuthOptions, ProtectedResource, TokenStore } from './types.js';
import { describe, secureUrl } from './urls.js';
import { scopeSet } from './www-authenticate.js';

/** What asking for a grant needs of the OAuthClient (oauth-client.ts). */
interface GrantContext {
  /** The MCP server, as errors name it. */
  server: string;
  options: OAuthOptions;
  store: TokenStore;
  http: typeof fetch;
  signal?: AbortSignal;
}

/** A registered client and the grant to send to the token endpoint for it. */
export interface Grant {
  client: ClientRegistration;
  request: TokenGrant;
}

/**
 * No user: the client's own credentials (`client_credentials`), or its workload's identity token
 * (`jwt-bearer`), for the resource.
 */
export async function grantWithoutUser(
  server: AuthorizationServer,
  resource: ProtectedResource,
  scope: string | undefined,
  context: GrantContext,
): Promise<Grant> {
  const client = await clientFor(server, context.options, context.store, { fetch: context.http, signal: context.signal });
  const request: TokenGrant =
    context.options.grantType === 'client_credentials'
      ? { grantType: 'client_credentials' }
      : {
          grantType: JWT_BEARER,
          assertion: await workloadAssertion(context.options, { issuer: server.issuer, resource: resource.resource, ...(scope ? { scope } : {}) }),
        };
  return { client, request };
}

async function workloadAssertion(options: OAuthOptions, target: AssertionTarget): Promise<string> {
  const given = options.assertion;
  let assertion: unknown;
  try {
    assertion = typeof given === 'function' ? await given(target) : given;
  } catch (err) {
    if (err instanceof AuthorizationError) throw err;
    throw new AuthorizationError(`the assertion could not be obtained: ${(err as Error).message}`, undefined, { cause: err });
  }
  if (typeof assertion !== 'string' || !assertion) throw new AuthorizationError('the workload assertion is empty');
  return assertion;
}

/**
 * The person's part of the authorization code flow: the prompt (`authorize`) shown where they
 * sign in, and the code their browser brings back. `whilePrompting` wraps the wait (the client
 * shares no token work while a person is being asked). Without `redirectUri` and `authorize`
 * there is nobody to ask: a `login_required` error naming the scopes the resource wants.
 */
export async function grantFromUser(
  server: AuthorizationServer,
  resource: ProtectedResource,
  scopes: { wanted: string | undefined; scope: string | undefined },
  context: GrantContext,
  whilePrompting: <T>(prompting: () => Promise<T>) => Promise<T>,
): Promise<Grant> {
  const { redirectUri, authorize } = context.options;
  const { scope } = scopes;
  if (!redirectUri || !authorize) {
    // offline_access is the client's own wish, added again by whoever logs in; the resource's scopes are the point.
    const needed = scopeSet(scopes.wanted)
      .filter((s) => s !== 'offline_access')
      .join(' ');
    throw new AuthorizationError(
      `${context.server} needs authorization${needed ? ` (scope ${describe(needed)})` : ''}, and this client has no way to ask the user (no redirectUri and authorize)`,
      'login_required',
      needed ? { scope: needed } : {},
    );
  }
  const redirect = secureRedirect(redirectUri);
  requirePkce(server);
  const client = await clientFor(server, context.options, context.store, { redirectUri: redirect, fetch: context.http, signal: context.signal });
  const pending = await startAuthorization(server, { clientId: client.clientId, redirectUri: redirect, resource: resource.resource, scope });
  const controller = new AbortController();
  const { signal } = context;
  const prompt = {
    url: pending.url,
    redirectUri: redirect,
    issuer: server.issuer,
    resource: resource.resource,
    ...(scope ? { scope } : {}),
    signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
  };
  const response = await whilePrompting(async () => {
    try {
      return await authorize(prompt);
    } catch (err) {
      if (err instanceof AuthorizationError) throw err;
      throw new AuthorizationError(`authorization did not complete: ${(err as Error).message}`, undefined, { cause: err });
    } finally {
      controller.abort();
    }
  });
  const code = readAuthorizationResponse(pending, response);
  return { client, request: { grantType: 'authorization_code', code, codeVerifier: pending.codeVerifier, redirectUri: redirect } };
}

/** security-considerations.mdx "Communication Security": redirect URIs are localhost or https. */
function secureRedirect(uri: string): string {
  secureUrl(uri, 'the redirect URI');
  return uri;
}
