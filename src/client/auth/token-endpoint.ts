import { randomUUID } from 'node:crypto';
import { importJWK, importPKCS8, SignJWT, type JWK } from 'jose';
import { AuthorizationError } from '../errors.js';
import { oauthErrorText, postForm } from './http.js';
import type { AuthorizationServer, ClientRegistration, PrivateKeyCredentials, TokenEndpointAuthMethod } from './types.js';

export type TokenGrant =
  | { grantType: 'authorization_code'; code: string; codeVerifier: string; redirectUri: string }
  | { grantType: 'refresh_token'; refreshToken: string }
  | { grantType: 'client_credentials' };

export interface TokenResponse {
  accessToken: string;
  expiresAt?: number;
  refreshToken?: string;
  scope?: string;
}

export interface TokenRequestOptions {
  /** The resource the token is for (RFC 8707): on every token request. */
  resource: string;
  scope?: string;
  privateKey?: PrivateKeyCredentials;
  fetch: typeof fetch;
  signal?: AbortSignal;
}

/**
 * One token request (OAuth 2.1 §3.2): the grant, the resource (RFC 8707,
 * authorization index.mdx: on authorization AND token requests), the client's
 * authentication by the method it was registered with or the server supports.
 */
export async function requestTokens(server: AuthorizationServer, client: ClientRegistration, grant: TokenGrant, options: TokenRequestOptions): Promise<TokenResponse> {
  const form = new URLSearchParams({ grant_type: grant.grantType });
  if (grant.grantType === 'authorization_code') {
    form.set('code', grant.code);
    form.set('code_verifier', grant.codeVerifier);
    form.set('redirect_uri', grant.redirectUri);
  } else if (grant.grantType === 'refresh_token') {
    form.set('refresh_token', grant.refreshToken);
  }
  form.set('resource', options.resource);
  if (options.scope) form.set('scope', options.scope);
  const headers = await authenticate(server, client, form, options.privateKey);
  const { status, body } = await postForm(options.fetch, new URL(server.tokenEndpoint), form, headers, options.signal);
  if (status !== 200 || !body) {
    const refusal = oauthErrorText(body, status);
    throw new AuthorizationError(`the authorization server refused the ${grant.grantType} token request: ${refusal.text}`, refusal.code);
  }
  return readTokenResponse(body);
}

function readTokenResponse(body: Record<string, unknown>): TokenResponse {
  const { access_token: accessToken, token_type: tokenType, expires_in: expiresIn, refresh_token: refreshToken, scope } = body;
  if (typeof accessToken !== 'string' || !accessToken || accessToken.length > 16_384 || /[\s\x00-\x1F\x7F]/.test(accessToken)) {
    throw new AuthorizationError('the token response holds no usable access_token');
  }
  // A bearer client cannot use a sender-constrained (DPoP) token: it would be sent without its proof.
  if (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer') {
    throw new AuthorizationError(`the token response is of type ${JSON.stringify(String(tokenType).slice(0, 40))}; this client uses Bearer tokens only`);
  }
  return {
    accessToken,
    ...(typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn >= 0 ? { expiresAt: Date.now() + expiresIn * 1000 } : {}),
    ...(typeof refreshToken === 'string' && refreshToken && refreshToken.length <= 16_384 ? { refreshToken } : {}),
    ...(typeof scope === 'string' ? { scope: scope.slice(0, 4096) } : {}),
  };
}

/** The method the client authenticates with, when its registration does not fix one. */
export function chooseAuthMethod(server: AuthorizationServer, client: ClientRegistration, hasKey: boolean): TokenEndpointAuthMethod {
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

async function authenticate(server: AuthorizationServer, client: ClientRegistration, form: URLSearchParams, key: PrivateKeyCredentials | undefined): Promise<Record<string, string>> {
  const method = chooseAuthMethod(server, client, key !== undefined);
  switch (method) {
    case 'client_secret_basic': {
      if (!client.clientSecret) throw new AuthorizationError('client_secret_basic needs a client secret');
      // RFC 6749 §2.3.1: both are form-encoded before they are joined and base64-encoded.
      const pair = `${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`;
      return { authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
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
  let signingKey;
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
    .setJti(randomUUID())
    .sign(signingKey);
}
