import type { JWK } from 'jose';
import { loadJose } from '../../runtime/lazy-jose.js';
import { randomId, sha256, toBase64Url } from '../../io/bytes.js';

/** The one proof algorithm this client signs with (RFC 9449 §4.2 asks for an asymmetric one). */
export const DPOP_ALGORITHM = 'ES256';

/**
 * The client's DPoP key (RFC 9449, SEP-1932): tokens the authorization server
 * binds to it are useless to whoever steals them without it. Each request
 * carries a fresh proof (a JWT naming the method, the URL, a unique id, the
 * time, the token's hash and the server's nonce when it gave one).
 */
export class DpopKey {
  private constructor(
    /** The private key as a JWK, to keep it with the tokens bound to it (never sent). */
    readonly privateJwk: JWK,
    private readonly key: CryptoKey | Uint8Array,
    private readonly publicJwk: JWK,
  ) {}

  static async generate(): Promise<DpopKey> {
    const { generateKeyPair, exportJWK } = await loadJose();
    const { privateKey, publicKey } = await generateKeyPair(DPOP_ALGORITHM, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    return new DpopKey(await exportJWK(privateKey), privateKey, { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y });
  }

  /** The key kept with stored tokens, back in use; undefined when it is not one. */
  static async restore(jwk: unknown): Promise<DpopKey | undefined> {
    if (typeof jwk !== 'object' || jwk === null) return undefined;
    const { kty, crv, x, y, d } = jwk as JWK;
    if (kty !== 'EC' || crv !== 'P-256' || !x || !y || !d) return undefined;
    try {
      const { importJWK } = await loadJose();
      return new DpopKey({ kty, crv, x, y, d }, await importJWK({ kty, crv, x, y, d }, DPOP_ALGORITHM), { kty, crv, x, y });
    } catch {
      return undefined;
    }
  }

  /** A proof for one request (RFC 9449 §4.2): `htu` without query or fragment, `ath` with a token. */
  async proof(method: string, url: string | URL, options: { accessToken?: string; nonce?: string } = {}): Promise<string> {
    const htu = new URL(String(url));
    htu.search = '';
    htu.hash = '';
    const { SignJWT } = await loadJose();
    // The token is ASCII (RFC 6750 b64token), so its UTF-8 bytes are the ASCII ones RFC 9449 §4.2 hashes.
    const ath = options.accessToken !== undefined ? toBase64Url(await sha256(options.accessToken)) : undefined;
    return new SignJWT({
      htm: method.toUpperCase(),
      htu: htu.href,
      ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
      ...(ath !== undefined ? { ath } : {}),
    })
      .setProtectedHeader({ typ: 'dpop+jwt', alg: DPOP_ALGORITHM, jwk: this.publicJwk })
      .setJti(randomId())
      .setIssuedAt()
      .sign(this.key);
  }
}

/** A server-provided nonce (RFC 9449 §8, §9), kept per server from the DPoP-Nonce response header. */
export function readNonce(headers: Headers): string | undefined {
  const nonce = headers.get('dpop-nonce');
  // NQCHAR (RFC 9449 §8.1): printable ASCII without the double quote and backslash.
  return nonce && nonce.length <= 1024 && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(nonce) ? nonce : undefined;
}
