import type { JWK, KeyObject } from 'jose';
import { loadJose } from '../runtime/lazy-jose.js';
import { randomToken, type Sealer } from './secrets.js';
import type { AuthProxyStore } from './store.js';

const KEY_ENTRY = 'signing-key';
/** The signing key is kept as long as the store keeps anything (a new one would end every token out there). */
const KEY_TTL_MS = 10 * 365 * 24 * 3600_000;

/** What toolwright's access tokens say (RFC 9068, the JWT profile for access tokens). */
export interface AccessTokenClaims {
  sub: string;
  client_id: string;
  scope: string;
  /** The grant the token was issued under: how tools reach the provider's token, and what revocation ends. */
  sid: string;
}

/**
 * toolwright's signing key (ES256): generated once, kept sealed in the store (so several
 * instances sharing a Redis share it, and a restart keeps tokens valid), published as a JWKS
 * the resource-server side verifies with.
 */
export class SigningKey {
  private loaded?: Promise<{ privateKey: KeyObject | CryptoKey; publicJwk: JWK }>;

  constructor(
    private readonly store: AuthProxyStore,
    private readonly sealer: Sealer,
  ) {}

  /** The public key set. */
  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: [(await this.key()).publicJwk] };
  }

  /** A signed access token for `audience` (the MCP server's canonical resource URI), valid `ttlSeconds`. */
  async sign(issuer: string, audience: string, claims: AccessTokenClaims, ttlSeconds: number): Promise<string> {
    const { SignJWT } = await loadJose();
    const { privateKey, publicJwk } = await this.key();
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: publicJwk.kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .setJti(randomToken())
      .sign(privateKey);
  }

  /** Verifies a token of ours (for /revoke); undefined when it is not one, whatever the reason. */
  async verify(token: string, issuer: string): Promise<Record<string, unknown> | undefined> {
    const { jwtVerify, importJWK } = await loadJose();
    try {
      const { publicJwk } = await this.key();
      const { payload } = await jwtVerify(token, await importJWK(publicJwk, 'ES256'), { issuer, algorithms: ['ES256'] });
      return payload;
    } catch {
      return undefined;
    }
  }

  private key(): Promise<{ privateKey: KeyObject | CryptoKey; publicJwk: JWK }> {
    this.loaded ??= this.loadOrCreate();
    this.loaded.catch(() => {
      this.loaded = undefined;
    });
    return this.loaded;
  }

  private async loadOrCreate(): Promise<{ privateKey: KeyObject | CryptoKey; publicJwk: JWK }> {
    const { generateKeyPair, exportJWK, importJWK, calculateJwkThumbprint } = await loadJose();
    const stored = await this.store.get(KEY_ENTRY);
    let privateJwk: JWK;
    if (stored) {
      privateJwk = JSON.parse(this.sealer.open(stored, KEY_ENTRY)) as JWK;
    } else {
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      privateJwk = await exportJWK(privateKey);
      privateJwk.kid = await calculateJwkThumbprint(privateJwk);
      await this.store.put(KEY_ENTRY, this.sealer.seal(JSON.stringify(privateJwk), KEY_ENTRY), KEY_TTL_MS);
    }
    const { d: _d, ...pub } = privateJwk;
    const publicJwk: JWK = { ...pub, alg: 'ES256', use: 'sig' };
    return { privateKey: (await importJWK(privateJwk, 'ES256')) as KeyObject | CryptoKey, publicJwk };
  }
}
