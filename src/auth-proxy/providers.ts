import type { AuthProxyOptions } from './options.js';

/** What the facade needs to know of a provider to run its authorization code flow. */
export interface ProviderEndpoints {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** RFC 7009 revocation, when the provider has it. */
  revocationEndpoint?: string;
  /** OpenID providers: the id_token is verified with these keys, for this issuer. */
  jwksUri?: string;
  issuer?: string;
  /** RFC 9207: the provider puts `iss` in its redirect, which must then be its issuer. */
  issParameter: boolean;
  /** The provider takes PKCE S256 on its leg. */
  pkce: boolean;
  tokenAuth: 'client_secret_post' | 'client_secret_basic';
}

/** A provider as configured: its endpoints (OpenID ones discovered on first use) and how it names the user. */
export interface Provider {
  readonly name: AuthProxyOptions['provider'];
  /** The OAuth 2.0 provider without OpenID (GitHub): the user is whoever its user API says. */
  readonly identity: 'id_token' | 'github';
  readonly defaultScopes: readonly string[];
  /** Parameters every authorization request to it carries (Google: offline access). */
  readonly extraAuthorizeParams: Readonly<Record<string, string>>;
  /** GitHub: the user API. */
  readonly userEndpoint?: string;
  endpoints(): Promise<ProviderEndpoints>;
}

const OIDC_SCOPES = ['openid', 'email', 'profile', 'offline_access'];

/** The provider `options` describe; throws a TypeError naming the missing key. */
export function providerOf(options: AuthProxyOptions, fetchImpl: typeof fetch = fetch): Provider {
  const oidc = (issuer: string, extra: Partial<Provider> = {}): Provider => ({
    name: options.provider,
    identity: 'id_token',
    defaultScopes: OIDC_SCOPES,
    extraAuthorizeParams: {},
    ...extra,
    endpoints: discovered(issuer, fetchImpl),
  });
  const need = (key: keyof AuthProxyOptions): string => {
    const value = options[key];
    if (typeof value !== 'string' || !value) throw new TypeError(`auth.proxy.${key} is required for provider ${options.provider}`);
    return value;
  };
  switch (options.provider) {
    case 'github':
      return github(options);
    case 'google':
      // Google gives a refresh token only with access_type=offline, and again only on prompt=consent.
      return oidc(options.issuer ?? 'https://accounts.google.com', {
        defaultScopes: ['openid', 'email', 'profile'],
        extraAuthorizeParams: { access_type: 'offline', prompt: 'consent' },
      });
    case 'entra':
      return oidc(options.issuer ?? `https://login.microsoftonline.com/${encodeURIComponent(need('tenant'))}/v2.0`);
    case 'auth0':
      return oidc(options.issuer ?? `https://${hostOnly(need('domain'), 'domain')}/`);
    case 'okta':
      return oidc(options.issuer ?? `https://${hostOnly(need('domain'), 'domain')}/oauth2/${encodeURIComponent(options.authorizationServerId ?? 'default')}`);
    case 'keycloak':
      return oidc(options.issuer ?? need('realmUrl').replace(/\/+$/, ''));
    case 'oidc':
      return oidc(need('issuer'));
    default:
      throw new TypeError(
        `auth.proxy.provider must be one of github, google, entra, auth0, okta, keycloak, oidc; got ${JSON.stringify(String(options.provider).slice(0, 40))}`,
      );
  }
}

function github(options: AuthProxyOptions): Provider {
  const web = (options.githubUrl ?? 'https://github.com').replace(/\/+$/, '');
  const api = (options.githubApiUrl ?? (options.githubUrl ? `${web}/api/v3` : 'https://api.github.com')).replace(/\/+$/, '');
  const endpoints: ProviderEndpoints = {
    authorizationEndpoint: `${web}/login/oauth/authorize`,
    tokenEndpoint: `${web}/login/oauth/access_token`,
    // GitHub revokes with DELETE /applications/{client_id}/token (upstream.ts), not RFC 7009.
    revocationEndpoint: `${api}/applications/${encodeURIComponent(options.clientId)}/token`,
    issParameter: false,
    pkce: true,
    tokenAuth: 'client_secret_post',
  };
  return {
    name: 'github',
    identity: 'github',
    defaultScopes: ['read:user'],
    extraAuthorizeParams: {},
    userEndpoint: `${api}/user`,
    endpoints: async () => endpoints,
  };
}

function hostOnly(value: string, key: string): string {
  const host = value.replace(/^https:\/\//, '').replace(/\/+$/, '');
  if (!/^[A-Za-z0-9.-]+(:\d+)?$/.test(host)) throw new TypeError(`auth.proxy.${key} must be a host name, e.g. example.eu.auth0.com`);
  return host;
}

/**
 * OpenID Connect discovery, once (a failure is retried on the next sign-in): the document's
 * `issuer` must be the configured one (OpenID Connect Discovery §4.3), or a look-alike could
 * name endpoints of its own.
 */
function discovered(issuer: string, fetchImpl: typeof fetch): () => Promise<ProviderEndpoints> {
  let pending: Promise<ProviderEndpoints> | undefined;
  return () => {
    pending ??= (async () => {
      const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      const res = await fetchImpl(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000), redirect: 'error' });
      if (!res.ok) throw new Error(`the provider's discovery document ${url} answered ${res.status}`);
      const doc = (await res.json()) as Record<string, unknown>;
      if (doc.issuer !== issuer) throw new Error(`the provider's discovery document names issuer ${JSON.stringify(doc.issuer)}, not ${issuer}`);
      const text = (key: string) => (typeof doc[key] === 'string' ? (doc[key] as string) : undefined);
      const authorizationEndpoint = text('authorization_endpoint');
      const tokenEndpoint = text('token_endpoint');
      const jwksUri = text('jwks_uri');
      if (!authorizationEndpoint || !tokenEndpoint || !jwksUri)
        throw new Error(`the provider's discovery document lacks authorization_endpoint, token_endpoint or jwks_uri`);
      const methods = Array.isArray(doc.token_endpoint_auth_methods_supported) ? doc.token_endpoint_auth_methods_supported : ['client_secret_basic'];
      const challenges = Array.isArray(doc.code_challenge_methods_supported) ? doc.code_challenge_methods_supported : [];
      return {
        authorizationEndpoint,
        tokenEndpoint,
        revocationEndpoint: text('revocation_endpoint'),
        jwksUri,
        issuer,
        issParameter: doc.authorization_response_iss_parameter_supported === true,
        // Providers that do not list methods mostly take S256 anyway; sending it costs nothing where ignored.
        pkce: challenges.length === 0 || challenges.includes('S256'),
        tokenAuth: methods.includes('client_secret_basic') ? 'client_secret_basic' : 'client_secret_post',
      };
    })();
    pending.catch(() => {
      pending = undefined;
    });
    return pending;
  };
}
