import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/** toolwright's client at the upstream provider. */
export const UPSTREAM_CLIENT = { id: 'toolwright-upstream', secret: 'upstream-secret-0123456789abcdef0123456789abcdef' };

export interface UpstreamIdp {
  readonly issuer: string;
  /** Authorization requests the provider received (their query), in order. */
  readonly authorizations: URLSearchParams[];
  /** Revocation requests received (token type hints). */
  readonly revocations: string[];
  close(): Promise<void>;
}

/**
 * A real OpenID provider (oidc-provider) upstream of the facade: authorization code with PKCE,
 * refresh tokens, its own login and consent pages (dev interactions: any login, any password),
 * RFC 9207 `iss` in redirects, revocation. `skipConsent` makes it grant without asking, as a
 * provider does for a client the user approved before.
 */
export async function startOidcUpstream(options: { callbackUrl: string; skipConsent?: boolean; accessTokenTtlSeconds?: number }): Promise<UpstreamIdp> {
  const authorizations: URLSearchParams[] = [];
  const revocations: string[] = [];
  let provider: Provider | undefined;
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/auth') authorizations.push(url.searchParams);
    if (url.pathname === '/token/revocation') revocations.push('revocation');
    provider!.callback()(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'upstream-1', alg: 'RS256', use: 'sig' };
  provider = new Provider(issuer, {
    jwks: { keys: [jwk as never] },
    clients: [
      {
        client_id: UPSTREAM_CLIENT.id,
        client_secret: UPSTREAM_CLIENT.secret,
        redirect_uris: [options.callbackUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    scopes: ['openid', 'email', 'profile', 'offline_access'],
    claims: { openid: ['sub'], email: ['email'], profile: ['name', 'preferred_username'] },
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: `${id}@example.test`, preferred_username: id }),
    }),
    issueRefreshToken: async () => true,
    features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
    pkce: { required: () => true },
    ttl: { AccessToken: () => options.accessTokenTtlSeconds ?? 3600, IdToken: 3600 },
    ...(options.skipConsent
      ? {
          // What a provider does for a client the user approved before: no consent page.
          loadExistingGrant: async (ctx: { oidc: { client: { clientId: string }; session: { accountId: string }; provider: Provider } }) => {
            const grant = new (ctx.oidc.provider as unknown as { Grant: new (o: object) => { addOIDCScope(s: string): void; save(): Promise<string> } }).Grant({
              clientId: ctx.oidc.client.clientId,
              accountId: ctx.oidc.session.accountId,
            });
            grant.addOIDCScope('openid email profile offline_access');
            await grant.save();
            return grant;
          },
        }
      : {}),
  } as never);
  provider.on('server_error', () => undefined);
  return {
    issuer,
    authorizations,
    revocations,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
