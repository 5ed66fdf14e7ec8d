import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { Sealer } from '../../../src/auth-proxy/secrets.js';
import type { SigningKeys } from '../../../src/auth-proxy/signing.js';

/** What the signing-key tests share: one sealer, one token's claims, and how a resource server judges a token. */
export const sealer = new Sealer('0123456789abcdef0123456789abcdef');
export const CLAIMS = { sub: 'u', client_id: 'c', scope: '', sid: 'g' };
export const ISSUER = 'http://127.0.0.1:1';
export const AUDIENCE = `${ISSUER}/mcp`;
export const kidOf = (jwt: string) => decodeProtectedHeader(jwt).kid;
export const kidsOf = async (keys: SigningKeys) => (await keys.jwks()).keys.map((k) => k.kid);

/** What a resource server holding exactly this instance's JWKS (no second read) makes of `jwt`: accepted, or jose's error code. */
export const verdict = async (keys: SigningKeys, jwt: string) =>
  jwtVerify(jwt, createLocalJWKSet((await keys.jwks()) as never), { issuer: ISSUER, audience: AUDIENCE }).then(
    () => 'accepted',
    (err: { code?: string }) => err.code,
  );
