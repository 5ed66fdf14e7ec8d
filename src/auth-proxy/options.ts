import type { AuditSink } from '../audit/record.js';
import type { UrlPolicyOptions } from '../policy/urls.js';
import type { AuditHealth, FacadeAuditFailurePolicy } from './audit-health.js';
import type { MetadataFetchOptions } from './client-metadata.js';
import type { AuthProxyStore } from './store.js';

/** The identity providers with presets; `oidc` is any OpenID provider found by discovery. */
export type ProviderName = 'github' | 'google' | 'entra' | 'auth0' | 'okta' | 'keycloak' | 'oidc';

/**
 * `server.auth.proxy`: toolwright answers as the authorization server of its MCP endpoint and
 * signs users in at an identity provider (docs/authorization.md, "Sign in with your identity
 * provider"). The provider sees one client, toolwright's (`clientId`, `clientSecret`, redirect
 * URI `<origin>/oauth/callback`); MCP clients see toolwright's own registration, consent and
 * tokens.
 */
export interface AuthProxyOptions {
  provider: ProviderName;
  /** toolwright's client id at the provider. */
  clientId: string;
  /** toolwright's client secret at the provider (`${VAR}` in a config). Never shown to MCP clients. */
  clientSecret: string;
  /** What toolwright asks the provider for (default: the preset's, e.g. `openid email profile`, GitHub `read:user`). */
  scopes?: string[];
  /** `oidc`: the issuer to discover (`<issuer>/.well-known/openid-configuration`). Others: overrides the preset's. */
  issuer?: string;
  /** `entra`: the directory (tenant) id or domain. */
  tenant?: string;
  /** `auth0`, `okta`: the tenant's domain, e.g. `example.eu.auth0.com`, `example.okta.com`. */
  domain?: string;
  /** `okta`: the authorization server id (default `default`). */
  authorizationServerId?: string;
  /** `keycloak`: the realm's URL, e.g. `https://sso.example.com/realms/tools`. */
  realmUrl?: string;
  /** `github`: GitHub Enterprise Server's address (default https://github.com, API https://api.github.com). */
  githubUrl?: string;
  /** `github`: its API address (default https://api.github.com, or `<githubUrl>/api/v3`). */
  githubApiUrl?: string;
  /**
   * The key the provider's tokens are sealed with at rest (AES-256-GCM): 32 bytes as hex or
   * base64, or a passphrase of 32+ characters. Required; `${VAR}` in a config.
   */
  encryptionKey: string;
  /** toolwright scopes a client may ask for (default: the resource server's `scopesSupported`). */
  scopesSupported?: string[];
  /**
   * A toolwright scope → the provider scopes it needs: the scope is granted only when the
   * provider granted all of them, and they are asked for with it. A scope not listed is
   * granted on toolwright's consent alone.
   */
  scopeMap?: Record<string, string[]>;
  /** Lifetime of the access tokens toolwright issues (default 900 s). */
  accessTokenTtlSeconds?: number;
  /**
   * Rotate the signing key on its own once it is this many days old (default: never; rotate with
   * `proxy.rotateSigningKey()`). The previous key stays in the JWKS for an access token's lifetime.
   */
  signingKeyMaxAgeDays?: number;
  /** Lifetime of a grant and its refresh tokens unused (default 30 days). */
  refreshTokenTtlSeconds?: number;
  /** How long a consent is remembered per browser, client and scope set (default 30 days; 0: ask every time). */
  consentTtlSeconds?: number;
  /** Requests per minute per client address at /register (default 10) and /token (default 60). */
  rateLimit?: { register?: number; token?: number };
  /** Clients named by the https URL of their metadata document (default on, public addresses only). `false` turns them off. */
  clientMetadataDocuments?: false | (UrlPolicyOptions & MetadataFetchOptions);
  /** Take the client address from the last X-Forwarded-For entry (behind a reverse proxy). */
  trustProxy?: boolean;
  /** Where state goes: a store, or a SQLite file path (default: memory). The config picks a file in the state folder, or Redis. */
  store?: AuthProxyStore;
  /**
   * Where the facade's events go, one audit record each (registration, consent, sign-in, tokens
   * issued and refreshed, revocation, every refusal with its reason): give the server's trail,
   * `server.audit` (a config does). `auditInstance`: the instance the records name (`server.instanceId`).
   */
  audit?: AuditSink;
  auditInstance?: string;
  /**
   * The server's audit health (`server.auditGuard`; a config gives it): the facade then follows
   * `server.audit.onFailure` with the tool calls, one state for both. Without it, the facade
   * keeps its own, by `auditFailure`.
   */
  auditGuard?: AuditHealth;
  /**
   * When a record cannot be written and no `auditGuard` is given: 'refuse' (default) refuses
   * registration, sign-in steps and token requests (503 `temporarily_unavailable`) until the
   * trail takes a write again (/revoke still runs); 'warn' serves on with one warning.
   */
  auditFailure?: FacadeAuditFailurePolicy;
}

/** The fixed path of the provider's redirect back to toolwright (printed at start-up). */
export const CALLBACK_PATH = '/oauth/callback';
