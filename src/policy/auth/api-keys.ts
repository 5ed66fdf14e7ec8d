import { nodeCrypto } from '../../runtime/lazy-crypto.js';
import type { AuthInfo } from './principal.js';
import { checkScopeList } from './scopes.js';

/**
 * API keys for small deployments, sent as bearer tokens. The config holds
 * only `sha256:<base64url digest>` of each key. A fast hash is the right one
 * here: keys are random (toolwright makes them 256-bit), so a digest cannot
 * be brute-forced, and a deliberately slow hash (scrypt, bcrypt) would make
 * every request, and every attacker's guess, cost the server milliseconds of
 * CPU. Keys shorter than MIN_KEY_CHARS are refused for the same reason.
 */
export interface ApiKeyEntry {
  /** `sha256:` and the base64url SHA-256 of the key. */
  hash: string;
  /** The principal id calls with this key carry. */
  principal: string;
  /** The scopes the key grants (default: none). */
  scopes?: string[];
  /** The tenant calls with this key belong to (`caller.tenant`; default: none). */
  tenant?: string;
}

const API_KEY_PREFIX = 'twk_';
const MIN_KEY_CHARS = 24;
const HASH_FORMAT = /^sha256:([A-Za-z0-9_-]{43})$/;

/** A new random key (256 bits) and its config entry's hash. */
export function generateApiKey(): { key: string; hash: string } {
  const key = API_KEY_PREFIX + nodeCrypto().randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key) };
}

/** The `hash` value for a config entry. */
export function hashApiKey(key: string): string {
  if (typeof key !== 'string' || key.length < MIN_KEY_CHARS) {
    throw new TypeError(`an API key must be at least ${MIN_KEY_CHARS} characters of random text (toolwright auth hash-key --generate makes one)`);
  }
  return `sha256:${nodeCrypto().createHash('sha256').update(key).digest('base64url')}`;
}

export class ApiKeyVerifier {
  private readonly keys: Array<{ digest: Buffer; info: AuthInfo }>;

  constructor(entries: readonly ApiKeyEntry[]) {
    const hashes = new Set<string>();
    this.keys = entries.map((entry, i) => {
      const where = `apiKeys[${i}]`;
      const match = typeof entry?.hash === 'string' ? HASH_FORMAT.exec(entry.hash) : null;
      if (!match) throw new TypeError(`${where}.hash must be "sha256:" followed by 43 base64url characters (toolwright auth hash-key makes it)`);
      if (typeof entry.principal !== 'string' || !entry.principal) throw new TypeError(`${where}.principal must be a non-empty string`);
      if (hashes.has(entry.hash)) throw new TypeError(`${where}.hash repeats an earlier key`);
      hashes.add(entry.hash);
      const scopes = entry.scopes === undefined ? [] : checkScopeList(entry.scopes, `${where}.scopes`);
      if (entry.tenant !== undefined && (typeof entry.tenant !== 'string' || !entry.tenant)) throw new TypeError(`${where}.tenant must be a non-empty string`);
      const info: AuthInfo = Object.freeze({
        id: entry.principal,
        subject: entry.principal,
        scopes: Object.freeze([...scopes]),
        claims: Object.freeze({}),
        ...(entry.tenant !== undefined ? { tenant: entry.tenant } : {}),
        method: 'api-key' as const,
      });
      return { digest: Buffer.from(match[1], 'base64url'), info };
    });
  }

  get size(): number {
    return this.keys.length;
  }

  /**
   * The key whose digest equals `digest` (the SHA-256 of the presented
   * token). Every configured digest is compared in constant time, and all of
   * them always are, so timing says nothing about which one was close.
   */
  match(digest: Buffer): AuthInfo | undefined {
    let found: AuthInfo | undefined;
    for (const key of this.keys) {
      if (nodeCrypto().timingSafeEqual(key.digest, digest) && !found) found = key.info;
    }
    return found;
  }
}
