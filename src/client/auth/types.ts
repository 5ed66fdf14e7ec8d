/** What a Protected Resource Metadata document (RFC 9728) says, as checked. */
export interface ProtectedResource {
  /** The resource identifier: the value for the `resource` parameter (RFC 8707). */
  resource: string;
  authorizationServers: string[];
  scopesSupported?: string[];
  /**
   * The resource server takes DPoP-bound tokens (RFC 9728 §2: `dpop_signing_alg_values_supported`
   * naming ES256, or `dpop_bound_access_tokens_required`; or its 401 was a DPoP challenge).
   */
  takesDpop?: boolean;
}

/** Authorization server metadata (RFC 8414 / OpenID Connect Discovery), as checked. */
export interface AuthorizationServer {
  issuer: string;
  authorizationEndpoint?: string;
  tokenEndpoint: string;
  registrationEndpoint?: string;
  /** RFC 7009 token revocation. */
  revocationEndpoint?: string;
  scopesSupported?: string[];
  tokenEndpointAuthMethods?: string[];
  grantTypes?: string[];
  codeChallengeMethods?: string[];
  /** RFC 9207: the server puts `iss` in its authorization responses. */
  issParameterSupported: boolean;
  clientIdMetadataDocumentSupported: boolean;
  /** RFC 9449 §5.1: the algorithms it takes DPoP proofs in; absent when it does not do DPoP. */
  dpopAlgorithms?: string[];
}

/** How the client authenticates at the token endpoint. */
export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

/** A client identity at one authorization server. */
export interface ClientRegistration {
  clientId: string;
  clientSecret?: string;
  /** Unix seconds; 0 or absent: does not expire (RFC 7591 `client_secret_expires_at`). */
  clientSecretExpiresAt?: number;
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** The redirect URIs it was registered with (dynamic registration). */
  redirectUris?: string[];
  /** How it was obtained. */
  kind: 'pre-registered' | 'metadata-document' | 'dynamic';
}

/** Tokens for one server from one authorization server. */
export interface StoredTokens {
  /** The MCP server's URL (canonical form): the only place the access token is sent. */
  server: string;
  /** The resource identifier the tokens were issued for (the `resource` parameter). */
  resource: string;
  issuer: string;
  accessToken: string;
  /** ms since the epoch; absent when the server did not say. */
  expiresAt?: number;
  /** When they were issued (ms since the epoch), to refresh a short-lived token in time but not at once. */
  obtainedAt?: number;
  refreshToken?: string;
  /** The scope the server granted (its `scope`, else what was asked). */
  scope?: string;
  /** The scope the client asked for, kept for the union on step-up. */
  requestedScope?: string;
  /** The client the tokens were issued to (a refresh goes with the same one). */
  clientId: string;
  /** `DPoP` when the token is bound to `dpopKey` (RFC 9449); absent for a Bearer token. */
  tokenType?: 'DPoP';
  /** The private key (a JWK) a DPoP-bound token is bound to: as secret as the refresh token. */
  dpopKey?: Record<string, unknown>;
}

/**
 * Where tokens and dynamic client registrations live between runs. Tokens are
 * kept per server (its canonical URL) and per authorization server, and a
 * registration belongs to the authorization server that issued it
 * (client-registration.mdx "Authorization Server Binding").
 */
export interface TokenStore {
  /** The tokens for `server` from `issuer`, or, without `issuer`, from the last one used. */
  loadTokens(server: string, issuer?: string): Promise<StoredTokens | undefined>;
  saveTokens(tokens: StoredTokens): Promise<void>;
  /** Forgets the tokens for `server` (from every authorization server); true when there were some. */
  deleteTokens(server: string): Promise<boolean>;
  loadClient(issuer: string): Promise<ClientRegistration | undefined>;
  saveClient(issuer: string, client: ClientRegistration): Promise<void>;
}

/** What a `jwt-bearer` assertion is for: the authorization server that will take it, and the resource. */
export interface AssertionTarget {
  issuer: string;
  resource: string;
  scope?: string;
}

/** The authorization request the user has to approve, for the application to show. */
export interface AuthorizationPrompt {
  /** Open this in the user's browser. */
  url: URL;
  /** Where the authorization server will send the browser back. */
  redirectUri: string;
  issuer: string;
  resource: string;
  scope?: string;
  /** Aborted when the authorization is no longer wanted. */
  signal: AbortSignal;
}

/** Client metadata sent in dynamic registration (RFC 7591) and published in a Client ID Metadata Document. */
export interface ClientMetadata {
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  software_id?: string;
  software_version?: string;
  [key: string]: unknown;
}

/** Private key authentication (RFC 7523 `private_key_jwt`) for `client_credentials`. */
export interface PrivateKeyCredentials {
  /** PKCS#8 PEM, or a private JWK. */
  privateKey: string | Record<string, unknown>;
  /** JWS algorithm, e.g. ES256 or RS256 (default ES256). */
  algorithm?: string;
  keyId?: string;
}

export interface OAuthOptions {
  /**
   * Who the client is at the authorization server. Without `clientId`, the
   * client uses its Client ID Metadata Document (`clientMetadataUrl`) where the
   * authorization server supports those, else registers dynamically (RFC 7591)
   * where it allows that (client-registration.mdx priority order).
   */
  clientId?: string;
  /** A pre-registered confidential client's secret. */
  clientSecret?: string;
  /** The issuer the pre-registered client belongs to; the client refuses to use it with another. */
  clientIssuer?: string;
  /** How the pre-registered client authenticates at the token endpoint (default: what the server supports). */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** An https URL whose document describes this client (draft-ietf-oauth-client-id-metadata-document). */
  clientMetadataUrl?: string;
  /** What dynamic registration says about the client (default name "toolwright"). */
  clientMetadata?: ClientMetadata;
  /** `application_type` for dynamic registration (default "native": a CLI or desktop app with a loopback redirect). */
  applicationType?: 'native' | 'web';
  /**
   * `authorization_code` (default): a user approves in a browser; `client_credentials`:
   * the client acts on its own behalf (an unattended service), with `clientId` and
   * `clientSecret` or `privateKey`; `jwt-bearer`: a workload presents an identity token
   * its platform issued (`assertion`; RFC 7523 §2.1, workload identity federation).
   */
  grantType?: 'authorization_code' | 'client_credentials' | 'jwt-bearer';
  /**
   * For `jwt-bearer`: the assertion (a JWT from the workload's platform), or a function that
   * gets a current one for the authorization server and resource at hand (`idJagAssertion`
   * makes one for enterprise-managed authorization). A refused assertion is reported, never
   * retried or exchanged for another grant.
   */
  assertion?: string | ((target: AssertionTarget) => string | Promise<string>);
  /** For `client_credentials` with private_key_jwt. */
  privateKey?: PrivateKeyCredentials;
  /** The loopback (or https) URI the browser comes back to; needed for `authorization_code`. */
  redirectUri?: string;
  /**
   * Shows the user the authorization URL (opens a browser) and resolves with the
   * URL the browser was sent back to (the redirect with `code`, `state`, `iss`).
   * Needed for `authorization_code`; see `LoopbackRedirect` for a ready one.
   */
  authorize?: (prompt: AuthorizationPrompt) => Promise<string | URL>;
  /** Where tokens and registrations are kept (default: in memory, for this client only). */
  store?: TokenStore;
  /** Scopes to ask for instead of the spec's selection (challenge, then `scopes_supported`). */
  scope?: string;
  /** Ask for `offline_access` (a refresh token) when the authorization server lists it (default true). */
  offlineAccess?: boolean;
  /**
   * Ask for DPoP-bound tokens (RFC 9449, SEP-1932) when the authorization server takes
   * ES256 proofs (default true): a stolen token is then useless without the client's key.
   */
  dpop?: boolean;
  /** Step-up re-authorizations allowed per request after `insufficient_scope` (default 2). */
  maxStepUps?: number;
  /** Replaces the global fetch for the authorization requests (discovery, registration, tokens). */
  fetch?: typeof fetch;
  /** Where diagnostics go (never with a token in them). */
  onWarning?: (message: string) => void;
}
