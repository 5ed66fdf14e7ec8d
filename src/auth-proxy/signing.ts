import type { JWK, JWTVerifyGetKey, KeyObject } from 'jose';
import { loadJose } from '../runtime/lazy-jose.js';
import { randomToken, type Sealer } from './secrets.js';
import type { AuthProxyStore } from './store.js';

/** The key set: every key still published, the last one the one that signs. */
const KEYS_ENTRY = 'signing-keys';
/** Where a store made before rotation existed kept its one key (read once, moved into the set). */
const LEGACY_ENTRY = 'signing-key';
/** The key set is kept as long as the store keeps anything (losing it would end every token out there). */
const KEYS_TTL_MS = 10 * 365 * 24 * 3600_000;
/** Writes of the set tried before giving up (another instance's write in between means read again; such writes are rare). */
const WRITE_ATTEMPTS = 10;

/** What toolwright's access tokens say (RFC 9068, the JWT profile for access tokens). */
export interface AccessTokenClaims {
  sub: string;
  client_id: string;
  scope: string;
  /** The grant the token was issued under: how tools reach the provider's token, and what revocation ends. */
  sid: string;
}

interface StoredKey {
  kid: string;
  publicJwk: JWK;
  /** The private JWK, sealed (associated data `signing-key:<kid>`); dropped once the key is retired. */
  sealed?: string;
  createdAt: number;
  /** When a newer key took over signing: the key is still published until `retiredAt + graceMs`. */
  retiredAt?: number;
}

interface KeySet {
  keys: StoredKey[];
}

export interface SigningKeysOptions {
  /** How long a retired key stays published: the longest a token it signed can live, with clock skew. */
  graceMs: number;
  /** Rotate on its own once the signing key is this old (default: only when asked). */
  maxAgeMs?: number;
  now?: () => number;
}

/**
 * toolwright's signing keys (ES256, each with a `kid`): kept in the store (sealed), so several
 * instances sharing a Redis sign and verify with the same set, and a restart keeps tokens valid.
 * The set is read from the store on each use (an instance sees another's rotation at once); only
 * the parsed set and the newest private key are kept in process. A rotation makes a new key sign
 * while the previous stays in the JWKS for `graceMs` (the tokens it signed live out their time).
 * The set is only ever written by compare-and-set against what was read (store.compareAndSet):
 * instances making the first key, or rotating by age, at the same moment converge on one set,
 * and no instance signs with a key that is not in it.
 */
export class SigningKeys {
  private parsed?: { text: string; set: KeySet };
  private signer?: { kid: string; key: Promise<KeyObject | CryptoKey> };
  private creating?: Promise<KeySet>;
  private renewing?: Promise<StoredKey>;
  private readonly now: () => number;

  constructor(
    private readonly store: AuthProxyStore,
    private readonly sealer: Sealer,
    private readonly options: SigningKeysOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The public key set: the signing key and every retired one still within its grace. */
  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: this.published(await this.keySet()).map((k) => k.publicJwk) };
  }

  /** A signed access token for `audience` (the MCP server's canonical resource URI), valid `ttlSeconds`. */
  async sign(issuer: string, audience: string, claims: AccessTokenClaims, ttlSeconds: number): Promise<string> {
    const { SignJWT } = await loadJose();
    let key = (await this.keySet()).keys.at(-1)!;
    if (this.tooOld(key)) key = await this.renewed();
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .setJti(randomToken())
      .sign(await this.privateKeyOf(key));
  }

  /**
   * Verifies a token of ours (for /revoke) with any published key; undefined when it is not one,
   * whatever the reason. A `kid` not in the set read reads the set once more before refusing (a
   * key another instance made a moment ago).
   */
  async verify(token: string, issuer: string): Promise<Record<string, unknown> | undefined> {
    const { jwtVerify } = await loadJose();
    try {
      const { payload } = await jwtVerify(token, await this.verificationKeys(), { issuer, algorithms: ['ES256'] });
      return payload;
    } catch {
      return undefined;
    }
  }

  /** A key lookup for jose's jwtVerify over the published set: an unknown `kid` re-reads the set from the store once. */
  async verificationKeys(): Promise<JWTVerifyGetKey> {
    const { createLocalJWKSet, errors } = await loadJose();
    const first = createLocalJWKSet(await this.jwks());
    return async (header, token) => {
      try {
        return await first(header, token);
      } catch (err) {
        if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
        return createLocalJWKSet(await this.jwks())(header, token);
      }
    };
  }

  /** Makes a new key the signing one; the previous stays published for the grace period. Returns the new `kid`. */
  async rotate(): Promise<string> {
    return (await this.rotateSet(() => true)).kid;
  }

  /**
   * Adds a new signing key to the set as the store holds it, when `needed(current signing key)`
   * still says so, written only if no other instance wrote the set since it was read (store
   * compare-and-set); otherwise read again and decide again. So instances rotating by age at the
   * same moment make one new key between them, and two asked rotations both count.
   */
  private async rotateSet(needed: (signing: StoredKey) => boolean): Promise<StoredKey> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const found = await this.current();
      if (!found) {
        await this.keySet();
        continue;
      }
      const signing = found.set.keys.at(-1)!;
      if (!needed(signing)) return signing;
      const now = this.now();
      const fresh = await this.newKey(now);
      const kept = this.published(found.set).map(({ sealed: _sealed, ...k }) => ({ ...k, retiredAt: k.retiredAt ?? now }));
      if (await this.write({ keys: [...kept, fresh] }, found.text)) return fresh;
    }
    throw new Error('auth-proxy: the signing key set kept changing while it was rotated; try again');
  }

  private tooOld(key: StoredKey): boolean {
    return this.options.maxAgeMs !== undefined && this.now() - key.createdAt >= this.options.maxAgeMs;
  }

  /** The age rotation, once for all the tokens signed at that moment here (and once among instances: rotateSet). */
  private renewed(): Promise<StoredKey> {
    this.renewing ??= this.rotateSet((current) => this.tooOld(current)).finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private published(set: KeySet): StoredKey[] {
    const now = this.now();
    return set.keys.filter((k) => k.retiredAt === undefined || k.retiredAt + this.options.graceMs > now);
  }

  /** The set as the store has it now, with its text (what a compare-and-set expects); parsed again only when the text changed. */
  private async current(): Promise<{ text: string; set: KeySet } | undefined> {
    const text = await this.store.get(KEYS_ENTRY);
    if (text === undefined) return undefined;
    if (this.parsed?.text !== text) this.parsed = { text, set: JSON.parse(text) as KeySet };
    return this.parsed;
  }

  /** The set as the store has it now; made on first use. */
  private async keySet(): Promise<KeySet> {
    const found = await this.current();
    if (found) return found.set;
    this.creating ??= this.create().finally(() => {
      this.creating = undefined;
    });
    return this.creating;
  }

  /** The first set, written only if the store still has none: an instance that loses the race takes the winner's set. */
  private async create(): Promise<KeySet> {
    const legacy = await this.store.get(LEGACY_ENTRY);
    const key = legacy ? await this.stored(JSON.parse(this.sealer.open(legacy, LEGACY_ENTRY)) as JWK, this.now()) : await this.newKey(this.now());
    const set = { keys: [key] };
    if (await this.write(set, undefined)) {
      if (legacy) await this.store.delete(LEGACY_ENTRY);
      return set;
    }
    const winner = await this.current();
    if (!winner) throw new Error('auth-proxy: the signing key set could not be created');
    return winner.set;
  }

  /** Writes the set if the store still holds `expected` (undefined: none), in one step where the store can; false when another write came first. */
  private async write(set: KeySet, expected: string | undefined): Promise<boolean> {
    const text = JSON.stringify(set);
    if (this.store.compareAndSet) {
      if (!(await this.store.compareAndSet(KEYS_ENTRY, expected, text, KEYS_TTL_MS))) return false;
    } else await this.store.put(KEYS_ENTRY, text, KEYS_TTL_MS);
    this.parsed = { text, set };
    return true;
  }

  private async newKey(now: number): Promise<StoredKey> {
    const { generateKeyPair, exportJWK, calculateJwkThumbprint } = await loadJose();
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = await exportJWK(privateKey);
    privateJwk.kid = await calculateJwkThumbprint(privateJwk);
    return this.stored(privateJwk, now);
  }

  private async stored(privateJwk: JWK, createdAt: number): Promise<StoredKey> {
    const kid = privateJwk.kid ?? (await (await loadJose()).calculateJwkThumbprint(privateJwk));
    const { d: _d, ...pub } = privateJwk;
    return {
      kid,
      publicJwk: { ...pub, kid, alg: 'ES256', use: 'sig' },
      sealed: this.sealer.seal(JSON.stringify({ ...privateJwk, kid }), `signing-key:${kid}`),
      createdAt,
    };
  }

  private privateKeyOf(key: StoredKey): Promise<KeyObject | CryptoKey> {
    if (this.signer?.kid !== key.kid) {
      const jwk = JSON.parse(this.sealer.open(key.sealed!, `signing-key:${key.kid}`)) as JWK;
      const loaded = loadJose().then(({ importJWK }) => importJWK(jwk, 'ES256') as Promise<KeyObject | CryptoKey>);
      this.signer = { kid: key.kid, key: loaded };
      loaded.catch(() => {
        if (this.signer?.key === loaded) this.signer = undefined;
      });
    }
    return this.signer.key;
  }
}
