import type { ApiKeyEntry } from './api-keys.js';
import type { Caller } from './caller.js';
import type { ScopePolicyOptions } from './scope-policy.js';

/**
 * `server.auth`: how an HTTP server authorizes its callers. OAuth (an
 * `issuer`, JWTs checked with its keys and/or opaque tokens introspected),
 * API keys, or both. Every key is optional except what the chosen mode needs.
 * The scope keys (toolScopes, toolVisibility, resourceScopes, …,
 * defaultScopes, scopeHierarchy) are ScopePolicyOptions: the same object
 * configures the server's ScopePolicy.
 */
export interface ResourceServerOptions extends ScopePolicyOptions {
  /** The authorization server's issuer identifier; tokens must carry it in `iss`. */
  issuer?: string;
  /** This server's canonical URI (RFC 8707); default: the URL it serves, e.g. http://127.0.0.1:3000/mcp. */
  resource?: string;
  /** Audiences a token may name (default: `resource`). Tokens for anything else are refused. */
  audience?: string | string[];
  /** The issuer's JWKS; default: `jwks_uri` from the issuer's metadata (RFC 8414 / OpenID discovery). */
  jwksUri?: string;
  /**
   * The issuer's public keys given in process instead of fetched from `jwksUri` (code only):
   * what toolwright's own authorization-server facade (`proxy`) uses, so the server never
   * fetches its own public URL. Called for every key-set refresh; keep it cheap.
   */
  jwks?: () => Promise<{ keys: object[] }>;
  /**
   * Asked on every request once its token is verified (the verification may be cached; this is
   * not): false refuses the token as `invalid_token` ("revoked"), a throw or rejection is a 503.
   * Code only: what toolwright's facade (`proxy`) gives, so that ending a grant cuts the access
   * tokens issued under it before their `exp`. It must be cheap (synchronous when it can).
   */
  tokenActive?: (caller: Caller) => boolean | Promise<boolean>;
  /** Allowed JWS algorithms (default: the asymmetric ones); `none` and HS* are refused. */
  algorithms?: string[];
  /** Clock skew tolerated on exp/nbf/iat (default 30 s, at most 300). */
  clockToleranceSeconds?: number;
  /** Least time between key set refetches caused by an unknown `kid` (default 30 s). */
  jwksCooldownSeconds?: number;
  /** Longest a verified JWT is remembered (default 300 s; never past its `exp`). */
  cacheTtlSeconds?: number;
  /** Opaque tokens: RFC 7662 introspection with this server's own client credentials. */
  introspection?: IntrospectionConfig;
  /** API keys (stored hashed), sent as bearer tokens. */
  apiKeys?: ApiKeyEntry[];
  /**
   * The token claim naming the caller's tenant (e.g. "tenant_id", "org_id"):
   * its string value becomes `caller.tenant`, and two tenants' callers with
   * the same subject share no limits, stored results, tasks or sessions.
   * Set, a token without it (or with a non-string or empty one) is refused
   * as an invalid token. Unset (default): OAuth callers have no tenant.
   */
  tenantClaim?: string;
  /** `scopes_supported` of the resource metadata, and the `scope` of a 401 challenge. */
  scopesSupported?: string[];
  /** `authorization_servers` of the resource metadata (default: [issuer]). */
  authorizationServers?: string[];
  /** More members for the resource metadata document (resource_name, resource_documentation, …). */
  resourceMetadata?: Record<string, unknown>;
}

export interface IntrospectionConfig {
  /** Default: `introspection_endpoint` from the issuer's metadata. */
  endpoint?: string;
  clientId: string;
  /** The client secret itself, or … */
  clientSecret?: string;
  /** … the name of the environment variable holding it (keeps the secret out of the file). */
  clientSecretEnv?: string;
  /** Refuse answers without `aud` (default true). */
  requireAudience?: boolean;
  /** Longest an introspection answer is remembered (default 30 s; never past the token's `exp`). A revoked token stays usable this long. */
  cacheTtlSeconds?: number;
}
