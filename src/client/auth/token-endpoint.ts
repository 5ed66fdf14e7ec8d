import type { JWK } from 'jose';
import { loadJose } from '../../runtime/lazy-jose.js';
import { randomId, toBase64, utf8Bytes } from '../../io/bytes.js';
import { AuthorizationError } from '../errors.js';
import { readNonce, type DpopKey } from './dpop.js';
import { oauthErrorText, postForm } from './http.js';
import type { AuthorizationServer, ClientRegistration, PrivateKeyCredentials, TokenEndpointAuthMethod } from './types.js';

export type TokenGrant =
  | { grantType: 'authorization_code'; code: string; codeVerifier: string; redirectUri: string }
  | { grantType: 'refresh_token'; refreshToken: string }
  | { grantType: 'client_credentials' }
  | { grantType: typeof JWT_BEARER; assertion: string };

/** RFC 7523 §2.1: a JWT as an authorization grant. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface TokenResponse {
  accessToken: string;
  /** `DPoP` when the server bound the token to the proof's key. */
  tokenType?: 'DPoP';
  expiresAt?: number;
  refreshToken?: string;
  scope?: string;
}

interface TokenRequestOptions {
  /** The resource the token is for (RFC 8707): on every token request. */
  resource: string;
  scope?: string;
  privateKey?: PrivateKeyCredentials;
  /** Asks for a DPoP-bound token (RFC 9449 §5): a proof with the request, the server's nonce when it wants one. */
  dpop?: { key: DpopKey; nonce?: string; onNonce(nonce: string): void };
  fetch: typeof fetch;
  signal?: AbortSignal;
}

/**
 * One token request (OAuth 2.1 §3.2): the grant, the resource (RFC 8707,
 * authorization index.mdx: on authorization AND token requests), the client's
 * authentication by the method it was registered with or the server supports.
 */
export async function requestTokens(
  server: AuthorizationServer,
  client: ClientRegistration,
  grant: TokenGrant,
  options: TokenRequestOptions,
): Promise<TokenResponse> {
  const form = new URLSearchParams({ grant_type: grant.grantType });
  if (grant.grantType === 'authorization_code') {
    form.set('code', grant.code);
    form.set('code_verifier', grant.codeVerifier);
    form.set('redirect_uri', grant.redirectUri);
  } else if (grant.grantType === 'refresh_token') {
    form.set('refresh_token', grant.refreshToken);
  } else if (grant.grantType === JWT_BEARER) {
    form.set('assertion', grant.assertion);
  }
  form.set('resource', options.resource);
  if (options.scope) form.set('scope', options.scope);
  const url = new URL(server.tokenEndpoint);
  const dpop = options.dpop;
  let nonce = dpop?.nonce;
  for (let attempt = 0; ; attempt++) {
    // A fresh client assertion and proof each time: both are single-use (RFC 7523 §3, RFC 9449 §4.2).
    const headers = await authenticate(server, client, form, options.privateKey);
    if (dpop) headers.dpop = await dpop.key.proof('POST', url, nonce !== undefined ? { nonce } : {});
    const { status, body, headers: answer } = await postForm(options.fetch, url, form, headers, options.signal);
    const given = dpop ? readNonce(answer) : undefined;
    if (given !== undefined) dpop!.onNonce(given);
    // RFC 9449 §8: the server wants its nonce in the proof; once, with the one it just gave.
    if (status === 400 && body?.error === 'use_dpop_nonce' && given !== undefined && given !== nonce && attempt === 0) {
      nonce = given;
      continue;
    }
    if (status !== 200 || !body) {
      const refusal = oauthErrorText(body, status);
      throw new AuthorizationError(`the authorization server refused the ${grant.grantType} token request: ${refusal.text}`, refusal.code);
    }
    return readTokenResponse(body, dpop !== undefined);
  }
}

function readTokenResponse(body: Record<string, unknown>, proved: boolean): TokenResponse {
  const { access_token: accessToken, token_type: tokenType, expires_in: expiresIn, refresh_token: refreshToken, scope } = body;
  if (typeof accessToken !== 'string' || !accessToken || accessToken.length > 16_384 || /[\s\x00-\x1F\x7F]/.test(accessToken)) {
    throw new AuthorizationError('the token response holds no usable access_token');
  }
  // A DPoP-bound token is usable only with the key whose proof asked for it; anything else is not ours to use.
  const type = typeof tokenType === 'string' ? tokenType.toLowerCase() : '';
  if (type !== 'bearer' && !(type === 'dpop' && proved)) {
    throw new AuthorizationError(
      `the token response is of type ${JSON.stringify(String(tokenType).slice(0, 40))}; this client takes Bearer tokens, and DPoP tokens it asked for with a proof`,
    );
  }
  return {
    accessToken,
    ...(type === 'dpop' ? { tokenType: 'DPoP' as const } : {}),
    ...(typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn >= 0 ? { expiresAt: Date.now() + expiresIn * 1000 } : {}),
    ...(typeof refreshToken === 'string' && refreshToken && refreshToken.length <= 16_384 ? { refreshToken } : {}),
    ...(typeof scope === 'string' ? { scope: scope.slice(0, 4096) } : {}),
  };
}

/**
 * Revokes a token at the authorization server that issued it (RFC 7009 §2.1), authenticated as
 * the client it was issued to. A 200 means the token is no longer valid (or never was).
 */
export async function revokeToken(
  server: AuthorizationServer,
  client: ClientRegistration,
  token: string,
  hint: 'refresh_token' | 'access_token',
  options: { fetch: typeof fetch; privateKey?: PrivateKeyCredentials },
): Promise<void> {
  if (!server.revocationEndpoint) throw new AuthorizationError(`the authorization server ${server.issuer} offers no token revocation`);
  const form = new URLSearchParams({ token, token_type_hint: hint });
  const headers = await authenticate(server, client, form, options.privateKey);
  const { status, body } = await postForm(options.fetch, new URL(server.revocationEndpoint), form, headers);
  if (status !== 200) {
    const refusal = oauthErrorText(body, status);
    throw new AuthorizationError(`the authorization server refused to revoke the token: ${refusal.text}`, refusal.code);
  }
}

/** The method the client authenticates with, when its registration does not fix one. */
function chooseAuthMethod(server: AuthorizationServer, client: ClientRegistration, hasKey: boolean): TokenEndpointAuthMethod {
  if (client.tokenEndpointAuthMethod) return client.tokenEndpointAuthMethod;
  if (hasKey) return 'private_key_jwt';
  if (!client.clientSecret) return 'none';
  const supported = server.tokenEndpointAuthMethods;
  // RFC 8414 §2: an absent list means client_secret_basic.
  if (!supported || supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  // A secret the server takes no method for: it does not want one (a public client).
  if (supported.includes('none')) return 'none';
  return 'client_secret_basic';
}

async function authenticate(
  server: AuthorizationServer,
  client: ClientRegistration,
  form: URLSearchParams,
  key: PrivateKeyCredentials | undefined,
): Promise<Record<string, string>> {
  const method = chooseAuthMethod(server, client, key !== undefined);
  switch (method) {
    case 'client_secret_basic': {
      if (!client.clientSecret) throw new AuthorizationError('client_secret_basic needs a client secret');
      // RFC 6749 §2.3.1: both are form-encoded before they are joined and base64-encoded.
      const pair = `${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`;
      return { authorization: `Basic ${toBase64(utf8Bytes(pair))}` };
    }
    case 'client_secret_post':
      if (!client.clientSecret) throw new AuthorizationError('client_secret_post needs a client secret');
      form.set('client_id', client.clientId);
      form.set('client_secret', client.clientSecret);
      return {};
    case 'private_key_jwt':
      if (!key) throw new AuthorizationError('private_key_jwt needs a private key');
      form.set('client_id', client.clientId);
      form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      form.set('client_assertion', await clientAssertion(server, client.clientId, key));
      return {};
    case 'none':
      form.set('client_id', client.clientId);
      return {};
  }
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** RFC 7523 §3 client assertion: issued by and about the client, for this authorization server, short-lived, single-use. */
async function clientAssertion(server: AuthorizationServer, clientId: string, key: PrivateKeyCredentials): Promise<string> {
  const algorithm = key.algorithm ?? 'ES256';
  const { importJWK, importPKCS8, SignJWT } = await loadJose();
  let signingKey: Awaited<ReturnType<typeof importJWK>>;
  try {
    signingKey = typeof key.privateKey === 'string' ? await importPKCS8(key.privateKey, algorithm) : await importJWK(key.privateKey as JWK, algorithm);
  } catch (err) {
    throw new AuthorizationError(`the private key could not be used for ${algorithm}: ${(err as Error).message}`);
  }
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: algorithm, typ: 'JWT', ...(key.keyId ? { kid: key.keyId } : {}) })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(server.issuer)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .setJti(randomId())
    .sign(signingKey);
}
