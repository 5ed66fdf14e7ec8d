import { nodeCrypto } from '../runtime/lazy-crypto.js';

/** 256 random bits, base64url: codes, refresh tokens, CSRF tokens, ids. */
export function randomToken(): string {
  return nodeCrypto().randomBytes(32).toString('base64url');
}

/** SHA-256, base64url. Stored keys of secrets are their hashes: a copy of the store hands out no live token. */
export function hashOf(text: string): string {
  return nodeCrypto().createHash('sha256').update(text).digest('base64url');
}

/** Constant-time equality of two strings (different lengths are unequal at once: lengths are not secret here). */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && nodeCrypto().timingSafeEqual(x, y);
}

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** A S256 challenge is a SHA-256 in base64url: 43 characters. */
export const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** RFC 7636 §4.6: BASE64URL(SHA256(verifier)) equals the challenge. Only S256 exists here ("plain" is refused at /authorize). */
export function pkceMatches(verifier: unknown, challenge: string): boolean {
  if (typeof verifier !== 'string' || !VERIFIER.test(verifier)) return false;
  return sameText(hashOf(verifier), challenge);
}

/** A new PKCE pair for the provider's leg. */
export function newPkce(): { verifier: string; challenge: string } {
  const verifier = randomToken();
  return { verifier, challenge: hashOf(verifier) };
}

/**
 * AES-256-GCM with a key from the config or the environment, for the provider's tokens at rest.
 * The sealed form is `v1.<iv>.<ciphertext+tag>` in base64url; `aad` (the grant id) binds a
 * sealed value to its grant, so one grant's tokens cannot be moved into another's record.
 */
export class Sealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = sealingKey(secret);
  }

  seal(plain: string, aad: string): string {
    const crypto = nodeCrypto();
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
  }

  /** The plain text; throws when the value was not sealed with this key for this `aad`. */
  open(sealed: string, aad: string): string {
    const [version, iv, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !body) throw new Error('not a sealed value');
    const bytes = Buffer.from(body, 'base64url');
    const decipher = nodeCrypto().createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
  }
}

/**
 * The AES key: 32 bytes given as 64 hex digits or 43+ base64(url) characters, or else derived
 * from a passphrase of at least 32 characters with HKDF (a passphrase has less entropy than its
 * length suggests; say so in the docs, do not guess).
 */
function sealingKey(secret: string): Buffer {
  if (typeof secret !== 'string' || secret.length < 32)
    throw new TypeError('auth.proxy.encryptionKey must be at least 32 characters (e.g. `openssl rand -base64 32`); use ${VAR} to keep it out of the file');
  if (/^[0-9a-f]{64}$/i.test(secret)) return Buffer.from(secret, 'hex');
  const decoded = Buffer.from(secret, 'base64');
  if (decoded.length === 32 && /^[A-Za-z0-9+/_-]{43}=?$/.test(secret)) return decoded;
  return Buffer.from(nodeCrypto().hkdfSync('sha256', Buffer.from(secret), Buffer.alloc(0), 'toolwright auth-proxy token sealing', 32));
}
