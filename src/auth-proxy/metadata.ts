import type { FacadeContext } from './context.js';

/**
 * RFC 8414 metadata of toolwright's authorization server. What it says is what the endpoints
 * do: S256 only, public and secret-based clients, `iss` in every redirect (RFC 9207), client
 * ID metadata documents when they are on.
 */
export function authorizationServerMetadata(ctx: FacadeContext): Record<string, unknown> {
  const at = (path: string) => `${ctx.issuer}${path}`;
  const authMethods = ['none', 'client_secret_basic', 'client_secret_post'];
  return {
    issuer: ctx.issuer,
    authorization_endpoint: at('/authorize'),
    token_endpoint: at('/token'),
    registration_endpoint: at('/register'),
    revocation_endpoint: at('/revoke'),
    jwks_uri: at('/oauth/jwks'),
    scopes_supported: [...ctx.scopesSupported],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: ctx.metadataPolicy !== undefined,
  };
}
