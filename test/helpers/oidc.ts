import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

/**
 * A real OpenID Connect provider (oidc-provider, a certified implementation)
 * on 127.0.0.1, for the resource server's tests: it issues client_credentials
 * access tokens bound to a resource (RFC 8707), as JWTs or opaque tokens, and
 * serves discovery, JWKS, introspection (RFC 7662) and revocation (RFC 7009).
 *
 * `rotateKeys()` swaps in a provider with a new signing key on the same
 * issuer, the way an authorization server rotates its keys.
 */
export interface LocalAuthorizationServer {
  readonly issuer: string;
  /** JWKS requests served so far (to see refetches). */
  readonly jwksFetches: number;
  /** Resources whose tokens are opaque (introspected) rather than JWTs. */
  readonly opaqueResources: Set<string>;
  /** Extra claims put into the next tokens (e.g. `nbf` in the future). */
  extraClaims: Record<string, unknown> | undefined;
  /** Lifetime of the next tokens, in seconds (default 300). */
  tokenTtlSeconds: number;
  token(options: { resource?: string; scope?: string; client?: TestClient }): Promise<{ access_token: string; expires_in: number; scope?: string }>;
  revoke(token: string): Promise<void>;
  /** The public signing keys (as published). */
  publicJwks(): JWK[];
  rotateKeys(): Promise<void>;
  close(): Promise<void>;
}

export interface TestClient {
  id: string;
  secret: string;
}

export const AGENT: TestClient = { id: 'agent', secret: 'agent-secret-0123456789abcdef0123456789' };
/** The resource server's own credentials, for introspection. */
export const RESOURCE_SERVER: TestClient = { id: 'toolwright-rs', secret: 'rs-secret-0123456789abcdef0123456789ab' };

export const ALL_SCOPES = ['tools:read', 'tools:write', 'admin', 'reports'];

/**
 * `interactive` also serves users (for the client's tests, issue #17): the authorization code
 * flow with PKCE behind oidc-provider's own login and consent pages (any login, any password),
 * dynamic client registration, offline_access and refresh tokens.
 */
export async function startAuthorizationServer(options: { tokenTtlSeconds?: number; interactive?: boolean } = {}): Promise<LocalAuthorizationServer> {
  const interactive = options.interactive === true;
  let provider: Provider;
  let jwksFetches = 0;
  const opaqueResources = new Set<string>();
  const keys: JWK[] = [];
  const state = { extraClaims: undefined as Record<string, unknown> | undefined, ttl: options.tokenTtlSeconds ?? 300 };

  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/jwks')) jwksFetches++;
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const newKey = async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = await exportJWK(privateKey);
    return { ...jwk, kid: `key-${keys.length + 1}`, alg: 'RS256', use: 'sig' };
  };

  const build = () => {
    const p = new Provider(issuer, {
      // Newest key first: it signs; the older ones stay published.
      jwks: { keys: [...keys].reverse() as never },
      clients: [
        {
          client_id: AGENT.id,
          client_secret: AGENT.secret,
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
          scope: ALL_SCOPES.join(' '),
        },
        { client_id: RESOURCE_SERVER.id, client_secret: RESOURCE_SERVER.secret, grant_types: [], redirect_uris: [], response_types: [] },
      ],
      scopes: interactive ? [...ALL_SCOPES, 'offline_access'] : ALL_SCOPES,
      ...(interactive
        ? {
            findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
            issueRefreshToken: async () => true,
          }
        : {}),
      features: {
        devInteractions: { enabled: interactive },
        registration: { enabled: interactive },
        clientCredentials: { enabled: true },
        introspection: { enabled: true, allowedPolicy: async () => true },
        revocation: {
          enabled: true,
          allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId: string }) => client.clientId === token.clientId,
        },
        resourceIndicators: {
          enabled: true,
          useGrantedResource: async () => true,
          getResourceServerInfo: async (_ctx: unknown, resource: string) => ({
            scope: ALL_SCOPES.join(' '),
            audience: resource,
            accessTokenTTL: state.ttl,
            accessTokenFormat: opaqueResources.has(resource) ? 'opaque' : 'jwt',
            ...(opaqueResources.has(resource) ? {} : { jwt: { sign: { alg: 'RS256' } } }),
          }),
        },
      },
      extraTokenClaims: async () => state.extraClaims,
      ttl: { ClientCredentials: () => state.ttl, ...(interactive ? { AccessToken: () => state.ttl } : {}) },
    } as never);
    p.on('server_error', () => undefined);
    return p;
  };

  keys.push(await newKey());
  provider = build();

  const basic = (client: TestClient) => `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}`;
  const form = async (path: string, client: TestClient, body: Record<string, string>) => {
    const res = await fetch(`${issuer}${path}`, {
      method: 'POST',
      headers: { authorization: basic(client), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${text}`);
    return text ? JSON.parse(text) : {};
  };

  return {
    issuer,
    get jwksFetches() {
      return jwksFetches;
    },
    opaqueResources,
    get extraClaims() {
      return state.extraClaims;
    },
    set extraClaims(value) {
      state.extraClaims = value;
    },
    get tokenTtlSeconds() {
      return state.ttl;
    },
    set tokenTtlSeconds(value) {
      state.ttl = value;
    },
    token: ({ resource, scope, client = AGENT }) =>
      form('/token', client, { grant_type: 'client_credentials', ...(resource ? { resource } : {}), ...(scope ? { scope } : {}) }),
    revoke: async (token) => {
      await form('/token/revocation', AGENT, { token, token_type_hint: 'access_token' });
    },
    publicJwks: () => keys.map(({ kty, n, e, kid, alg, use }) => ({ kty, n, e, kid, alg, use }) as JWK),
    rotateKeys: async () => {
      keys.push(await newKey());
      provider = build();
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
