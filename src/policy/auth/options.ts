import type { ApiKeyEntry } from './api-keys.js';

/**
 * `server.auth`: how an HTTP server authorizes its callers. OAuth (an
 * `issuer`, JWTs checked with its keys and/or opaque tokens introspected),
 * API keys, or both. Every key is optional except what the chosen mode needs.
 */
export interface ResourceServerOptions {
  /** The authorization server's issuer identifier; tokens must carry it in `iss`. */
  issuer?: string;
  /** This server's canonical URI (RFC 8707); default: the URL it serves, e.g. http://127.0.0.1:3000/mcp. */
  resource?: string;
  /** Audiences a token may name (default: `resource`). Tokens for anything else are refused. */
  audience?: string | string[];
  /** The issuer's JWKS; default: `jwks_uri` from the issuer's metadata (RFC 8414 / OpenID discovery). */
  jwksUri?: string;
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
  /** `scopes_supported` of the resource metadata, and the `scope` of a 401 challenge. */
  scopesSupported?: string[];
  /** `authorization_servers` of the resource metadata (default: [issuer]). */
  authorizationServers?: string[];
  /** More members for the resource metadata document (resource_name, resource_documentation, …). */
  resourceMetadata?: Record<string, unknown>;
  /** Tool name → scopes a call needs (wins over the tool's own `scopes`). */
  toolScopes?: Record<string, string[]>;
  /** Tool name → scopes a caller needs to know the tool exists (wins over the tool's own `visibilityScopes`). */
  toolVisibility?: Record<string, string[]>;
  /** Resource URI or uriTemplate → scopes a read needs (wins over the resource's own `scopes`). */
  resourceScopes?: Record<string, string[]>;
  /** Resource URI or uriTemplate → scopes a caller needs to know it exists. */
  resourceVisibility?: Record<string, string[]>;
  /** Prompt name → scopes `prompts/get` needs (wins over the prompt's own `scopes`). */
  promptScopes?: Record<string, string[]>;
  /** Prompt name → scopes a caller needs to know the prompt exists. */
  promptVisibility?: Record<string, string[]>;
  /** Scopes for what names none: read-only tools (readOnlyHint), other tools, resources, prompts. */
  defaultScopes?: { readOnly?: string[]; other?: string[]; resources?: string[]; prompts?: string[] };
  /** Broader scope → narrower scopes it implies (transitively). */
  scopeHierarchy?: Record<string, string[]>;
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
