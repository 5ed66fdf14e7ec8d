import { loadJose } from '../runtime/lazy-jose.js';
import type { Provider, ProviderEndpoints } from './providers.js';

/** The provider's tokens for one grant, as kept (sealed) in the store. */
export interface UpstreamTokens {
  accessToken: string;
  refreshToken?: string;
  /** Milliseconds since the epoch; undefined when the provider did not say. */
  expiresAt?: number;
  /** The scopes the provider granted (its `scope`, else what was asked for). */
  scopes: string[];
}

export class UpstreamError extends Error {}

interface Credentials {
  clientId: string;
  clientSecret: string;
}

const TIMEOUT_MS = 10_000;
const MAX_RESPONSE_CHARS = 64 * 1024;

/** The provider's authorization URL for this sign-in. */
export function authorizationUrl(
  provider: Provider,
  endpoints: ProviderEndpoints,
  leg: { clientId: string; redirectUri: string; scopes: readonly string[]; state: string; challenge?: string; nonce?: string },
): string {
  const url = new URL(endpoints.authorizationEndpoint);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: leg.clientId,
    redirect_uri: leg.redirectUri,
    state: leg.state,
    ...(leg.scopes.length ? { scope: leg.scopes.join(' ') } : {}),
    ...(leg.challenge && endpoints.pkce ? { code_challenge: leg.challenge, code_challenge_method: 'S256' } : {}),
    ...(leg.nonce && provider.identity === 'id_token' ? { nonce: leg.nonce } : {}),
    ...provider.extraAuthorizeParams,
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

/** Trades the provider's code for its tokens (with the PKCE verifier of this leg). */
export async function exchangeCode(
  endpoints: ProviderEndpoints,
  credentials: Credentials,
  code: string,
  redirectUri: string,
  verifier: string | undefined,
  asked: readonly string[],
): Promise<{ tokens: UpstreamTokens; idToken?: string }> {
  const body = await tokenRequest(endpoints, credentials, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    ...(verifier && endpoints.pkce ? { code_verifier: verifier } : {}),
  });
  return { tokens: tokensOf(body, asked), idToken: typeof body.id_token === 'string' ? body.id_token : undefined };
}

/** A fresh provider access token from its refresh token (the provider may rotate the refresh token too). */
export async function refreshUpstream(endpoints: ProviderEndpoints, credentials: Credentials, current: UpstreamTokens): Promise<UpstreamTokens> {
  if (!current.refreshToken) throw new UpstreamError('the provider gave no refresh token; sign in again');
  const body = await tokenRequest(endpoints, credentials, { grant_type: 'refresh_token', refresh_token: current.refreshToken });
  const next = tokensOf(body, current.scopes);
  return { ...next, refreshToken: next.refreshToken ?? current.refreshToken };
}

/**
 * Revokes the provider's token: RFC 7009 where the provider has it, GitHub's
 * `DELETE /applications/{client_id}/token`. Best effort: the grant is gone at toolwright
 * whatever the provider answers.
 */
export async function revokeUpstream(provider: Provider, endpoints: ProviderEndpoints, credentials: Credentials, tokens: UpstreamTokens): Promise<void> {
  if (!endpoints.revocationEndpoint) return;
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`).toString('base64')}`;
  if (provider.identity === 'github') {
    await fetch(endpoints.revocationEndpoint, {
      method: 'DELETE',
      headers: { authorization: basic, accept: 'application/vnd.github+json', 'content-type': 'application/json' },
      body: JSON.stringify({ access_token: tokens.accessToken }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }).then((res) => res.body?.cancel());
    return;
  }
  const token = tokens.refreshToken ?? tokens.accessToken;
  const hint = tokens.refreshToken ? 'refresh_token' : 'access_token';
  await fetch(endpoints.revocationEndpoint, {
    method: 'POST',
    headers: { ...authHeader(endpoints, credentials), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ token, token_type_hint: hint, ...authBody(endpoints, credentials) }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  }).then((res) => res.body?.cancel());
}

/**
 * Who signed in. OpenID providers: the id_token, verified with the provider's keys, its
 * issuer, toolwright's client id as audience, and this leg's nonce (OpenID Connect Core
 * §3.1.3.7). GitHub: its user API, called with the token just obtained.
 */
export async function identify(
  provider: Provider,
  endpoints: ProviderEndpoints,
  clientId: string,
  tokens: UpstreamTokens,
  idToken: string | undefined,
  nonce: string,
): Promise<{ subject: string; name?: string }> {
  if (provider.identity === 'github') {
    const res = await fetch(provider.userEndpoint!, {
      headers: { authorization: `Bearer ${tokens.accessToken}`, accept: 'application/vnd.github+json', 'user-agent': 'toolwright' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const user = (await res.json().catch(() => undefined)) as { id?: unknown; login?: unknown } | undefined;
    if (!res.ok || (typeof user?.id !== 'number' && typeof user?.id !== 'string')) throw new UpstreamError('the provider did not say who signed in');
    return { subject: String(user.id), ...(typeof user.login === 'string' ? { name: user.login } : {}) };
  }
  if (!idToken || !endpoints.jwksUri || !endpoints.issuer) throw new UpstreamError('the provider sent no id_token (is `openid` among the scopes?)');
  const { jwtVerify, createRemoteJWKSet } = await loadJose();
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(idToken, keySet(endpoints.jwksUri, createRemoteJWKSet), {
      issuer: endpoints.issuer,
      audience: clientId,
      clockTolerance: 30,
    }));
  } catch {
    throw new UpstreamError("the provider's id_token did not verify");
  }
  if (payload.nonce !== nonce) throw new UpstreamError("the provider's id_token carries another sign-in's nonce");
  if (typeof payload.sub !== 'string' || !payload.sub) throw new UpstreamError("the provider's id_token names no subject");
  const name = typeof payload.preferred_username === 'string' ? payload.preferred_username : typeof payload.email === 'string' ? payload.email : undefined;
  return { subject: payload.sub, ...(name ? { name } : {}) };
}

const keySets = new Map<string, ReturnType<typeof import('jose').createRemoteJWKSet>>();
function keySet(uri: string, create: typeof import('jose').createRemoteJWKSet) {
  let set = keySets.get(uri);
  if (!set) keySets.set(uri, (set = create(new URL(uri), { timeoutDuration: TIMEOUT_MS })));
  return set;
}

function authHeader(endpoints: ProviderEndpoints, c: Credentials): Record<string, string> {
  if (endpoints.tokenAuth !== 'client_secret_basic') return {};
  return { authorization: `Basic ${Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`).toString('base64')}` };
}

function authBody(endpoints: ProviderEndpoints, c: Credentials): Record<string, string> {
  return endpoints.tokenAuth === 'client_secret_post' ? { client_id: c.clientId, client_secret: c.clientSecret } : {};
}

async function tokenRequest(endpoints: ProviderEndpoints, credentials: Credentials, params: Record<string, string>): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(endpoints.tokenEndpoint, {
      method: 'POST',
      headers: { ...authHeader(endpoints, credentials), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ ...params, ...authBody(endpoints, credentials) }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'error',
    });
  } catch {
    throw new UpstreamError("the provider's token endpoint could not be reached");
  }
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = text.length <= MAX_RESPONSE_CHARS ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = {};
  }
  // GitHub answers errors with 200 and an `error` member.
  if (!res.ok || typeof body.error === 'string' || typeof body.access_token !== 'string') {
    const code = typeof body.error === 'string' ? body.error.replace(/[^\w.-]/g, '').slice(0, 60) : `HTTP ${res.status}`;
    throw new UpstreamError(`the provider refused the token request (${code})`);
  }
  return body;
}

function tokensOf(body: Record<string, unknown>, asked: readonly string[]): UpstreamTokens {
  const expiresIn = Number(body.expires_in);
  const scope = typeof body.scope === 'string' ? body.scope.split(/[ ,]+/).filter(Boolean) : [...asked];
  return {
    accessToken: body.access_token as string,
    ...(typeof body.refresh_token === 'string' ? { refreshToken: body.refresh_token } : {}),
    ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresAt: Date.now() + expiresIn * 1000 } : {}),
    scopes: scope,
  };
}
