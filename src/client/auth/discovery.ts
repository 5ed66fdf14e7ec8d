import { AuthorizationError } from '../errors.js';
import { requestJson } from './http.js';
import type { AuthorizationServer, ProtectedResource } from './types.js';
import { authorizationServerWellKnown, describe, protectedResourceWellKnown, resourceCovers, secureUrl } from './urls.js';
import type { BearerChallenge } from './www-authenticate.js';

/** AuthorizationError.oauthError when a server asks for authorization but says nowhere how to get it (no OAuth: an API key, say). */
export const NO_RESOURCE_METADATA = 'no_resource_metadata';

/**
 * Finds the server's Protected Resource Metadata (authorization-server-discovery.mdx):
 * at the URL its challenge names when it names one, otherwise at the path-based,
 * then the root well-known URI. The document's `resource` MUST identify this
 * server (RFC 9728 §3.3, RFC 8707): one for another origin or path is refused
 * before any authorization starts, so no token for it is ever requested here.
 */
export async function discoverProtectedResource(
  server: URL,
  challenge: BearerChallenge | undefined,
  fetchFn: typeof fetch,
  signal?: AbortSignal,
): Promise<ProtectedResource> {
  const resource = await findProtectedResource(server, challenge, fetchFn, signal);
  // RFC 9449 §7.1: a resource server that challenges with the DPoP scheme takes DPoP tokens.
  return challenge?.scheme === 'DPoP' ? { ...resource, takesDpop: true } : resource;
}

async function findProtectedResource(
  server: URL,
  challenge: BearerChallenge | undefined,
  fetchFn: typeof fetch,
  signal?: AbortSignal,
): Promise<ProtectedResource> {
  const candidates =
    challenge?.resourceMetadata !== undefined
      ? [secureUrl(challenge.resourceMetadata, "the server's resource_metadata URL")]
      : protectedResourceWellKnown(server);
  const tried: string[] = [];
  for (const url of candidates) {
    const { status, body } = await requestJson(fetchFn, url, { signal });
    tried.push(`${url.href} (HTTP ${status})`);
    if (status !== 200 || !body) continue;
    return readProtectedResource(body, server, url);
  }
  throw new AuthorizationError(
    `${server.origin} asks for authorization but publishes no Protected Resource Metadata (tried ${tried.join(', ')})`,
    NO_RESOURCE_METADATA,
  );
}

function readProtectedResource(body: Record<string, unknown>, server: URL, from: URL): ProtectedResource {
  const resource = secureUrl(body.resource, `the resource in ${from.href}`);
  if (!resourceCovers(resource, server)) {
    throw new AuthorizationError(
      `the Protected Resource Metadata at ${from.href} is for ${describe(body.resource)}, not for ${server.href}: refusing to request a token for another resource`,
    );
  }
  const servers = body.authorization_servers;
  if (!Array.isArray(servers) || servers.length === 0 || !servers.every((s) => typeof s === 'string')) {
    throw new AuthorizationError(`the Protected Resource Metadata at ${from.href} names no authorization server`);
  }
  const scopes = stringArray(body.scopes_supported);
  const takesDpop = body.dpop_bound_access_tokens_required === true || (stringArray(body.dpop_signing_alg_values_supported)?.includes('ES256') ?? false);
  return {
    ...(takesDpop ? { takesDpop } : {}),
    // The identifier exactly as published: it is the `resource` parameter (RFC 8707).
    resource: body.resource as string,
    authorizationServers: servers.slice(0, 20) as string[],
    ...(scopes ? { scopesSupported: scopes } : {}),
  };
}

/**
 * Reads an authorization server's metadata from the well-known URIs in the
 * spec's order, RFC 8414 and OpenID Connect Discovery. A document whose
 * `issuer` is not exactly the issuer the URL was built from is not used
 * (RFC 8414 §3.3, OpenID Connect Discovery §4.3): it may be an attacker's.
 */
export async function discoverAuthorizationServer(issuer: string, fetchFn: typeof fetch, signal?: AbortSignal): Promise<AuthorizationServer> {
  const issuerUrl = secureUrl(issuer, 'the authorization server');
  if (issuerUrl.search) throw new AuthorizationError(`the authorization server identifier ${describe(issuer)} must not have a query`);
  const tried: string[] = [];
  for (const url of authorizationServerWellKnown(issuerUrl)) {
    const { status, body } = await requestJson(fetchFn, url, { signal });
    if (status !== 200 || !body) {
      tried.push(`${url.href} (HTTP ${status})`);
      continue;
    }
    if (body.issuer !== issuer) {
      tried.push(`${url.href} (its issuer ${describe(body.issuer)} is not ${describe(issuer)}: not used)`);
      continue;
    }
    return readAuthorizationServer(body, issuer, url);
  }
  throw new AuthorizationError(`no usable metadata for the authorization server ${describe(issuer)} (tried ${tried.join(', ')})`);
}

function readAuthorizationServer(body: Record<string, unknown>, issuer: string, from: URL): AuthorizationServer {
  const where = (field: string) => `${field} in ${from.href}`;
  const tokenEndpoint = secureUrl(body.token_endpoint, where('token_endpoint')).href;
  const authorizationEndpoint =
    body.authorization_endpoint === undefined ? undefined : secureUrl(body.authorization_endpoint, where('authorization_endpoint')).href;
  const registrationEndpoint =
    body.registration_endpoint === undefined ? undefined : secureUrl(body.registration_endpoint, where('registration_endpoint')).href;
  const revocationEndpoint = body.revocation_endpoint === undefined ? undefined : secureUrl(body.revocation_endpoint, where('revocation_endpoint')).href;
  const optional = <K extends string>(key: K, value: string[] | undefined) => (value ? { [key]: value } : {}) as Partial<Record<K, string[]>>;
  return {
    issuer,
    tokenEndpoint,
    ...(authorizationEndpoint ? { authorizationEndpoint } : {}),
    ...(registrationEndpoint ? { registrationEndpoint } : {}),
    ...(revocationEndpoint ? { revocationEndpoint } : {}),
    ...optional('scopesSupported', stringArray(body.scopes_supported)),
    ...optional('tokenEndpointAuthMethods', stringArray(body.token_endpoint_auth_methods_supported)),
    ...optional('grantTypes', stringArray(body.grant_types_supported)),
    ...optional('codeChallengeMethods', stringArray(body.code_challenge_methods_supported)),
    issParameterSupported: body.authorization_response_iss_parameter_supported === true,
    clientIdMetadataDocumentSupported: body.client_id_metadata_document_supported === true,
    ...optional('dpopAlgorithms', stringArray(body.dpop_signing_alg_values_supported)),
  };
}

function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value.slice(0, 1000) as string[]) : undefined;
}
