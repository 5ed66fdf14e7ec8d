import { nodeCrypto } from '../../runtime/lazy-crypto.js';
import { ApiKeyVerifier } from './api-keys.js';
import { AudienceMatcher } from './audience.js';
import { MetadataSource } from './discovery.js';
import { IntrospectionVerifier } from './introspection.js';
import { ASYMMETRIC_ALGORITHMS, checkAlgorithms, JwtVerifier } from './jwt.js';
import type { ResourceServerOptions } from './options.js';
import type { AuthInfo } from './principal.js';
import { checkScopeList } from './scopes.js';
import { AuthUnavailableError, InvalidTokenError } from './token-error.js';
import { VerificationCache } from './verify-cache.js';

/**
 * SHA-256 of a token, base64. `crypto.hash` (Node >= 20.12) is one native
 * call; `createHash().update().digest()` is three and a Hash object, ~2 µs
 * more a request on the hot path. Feature-detected: Node 20 before 20.12
 * lacks it. node:crypto is loaded by the first token (runtime/lazy-crypto.ts).
 */
type OneShotHash = (algorithm: string, data: string, encoding: 'base64') => string;
let digestOf: ((token: string) => string) | undefined;
export function tokenDigest(token: string): string {
  if (!digestOf) {
    const crypto = nodeCrypto();
    const oneShot = (crypto as { hash?: OneShotHash }).hash;
    digestOf = oneShot ? (text) => oneShot('sha256', text, 'base64') : (text) => crypto.createHash('sha256').update(text).digest('base64');
  }
  return digestOf(token);
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/**
 * Distinct tokens being verified at once. Each may cost a call to the
 * authorization server (introspection, a key set fetch): a flood of made-up
 * tokens must not become a flood of outbound requests, so past this many the
 * next new token is answered 503 at once.
 */
export const MAX_PENDING_VERIFICATIONS = 64;

/**
 * The one place a bearer token becomes a principal: API keys first (a hash
 * and constant-time compares), then verified results remembered by the
 * token's hash (never past expiry), then a JWT check with the issuer's keys
 * or an introspection call. Concurrent checks of one new token share one
 * verification. Built once per server.
 */
export class TokenVerifier {
  private readonly apiKeys?: ApiKeyVerifier;
  private readonly jwt?: JwtVerifier;
  private readonly introspection?: IntrospectionVerifier;
  private readonly cache: VerificationCache;
  private readonly jwtCacheMs: number;
  private readonly introspectionCacheMs: number;
  private readonly inflight = new Map<string, Promise<AuthInfo>>();
  private readonly tenantClaim?: string;
  readonly audiences: readonly string[];

  constructor(options: ResourceServerOptions & { resource: string }, now: () => number = Date.now) {
    checkAdvertisedScopes(options.scopesSupported);
    if (options.tenantClaim !== undefined && (typeof options.tenantClaim !== 'string' || !options.tenantClaim))
      throw new TypeError('auth.tenantClaim must be a non-empty string (the token claim naming the tenant)');
    this.tenantClaim = options.tenantClaim;
    const tolerance = options.clockToleranceSeconds ?? 30;
    if (!Number.isFinite(tolerance) || tolerance < 0 || tolerance > 300) throw new TypeError('auth.clockToleranceSeconds must be from 0 to 300');
    const audienceList = options.audience === undefined ? [options.resource] : typeof options.audience === 'string' ? [options.audience] : options.audience;
    if (!audienceList.length) throw new TypeError('auth.audience must name at least one audience');
    this.audiences = audienceList;
    const audience = new AudienceMatcher(audienceList);
    const metadata = options.issuer ? new MetadataSource(options.issuer) : undefined;
    this.cache = new VerificationCache(10_000, now);
    this.jwtCacheMs = (options.cacheTtlSeconds ?? 300) * 1000;
    this.introspectionCacheMs = (options.introspection?.cacheTtlSeconds ?? 30) * 1000;

    if (options.apiKeys?.length) this.apiKeys = new ApiKeyVerifier(options.apiKeys);
    if (options.issuer || options.jwksUri || options.jwks) {
      if (!options.issuer) throw new TypeError('auth.jwksUri needs auth.issuer: a token is only accepted from the issuer it names');
      const jwksUri = options.jwksUri;
      this.jwt = new JwtVerifier({
        issuer: options.issuer,
        audience,
        jwksUri: jwksUri
          ? async () => jwksUri
          : async () => {
              const found = (await metadata!.get()).jwks_uri;
              if (typeof found !== 'string') throw new AuthUnavailableError(`the metadata of ${options.issuer} names no jwks_uri; set auth.jwksUri`);
              return found;
            },
        ...(options.jwks ? { localKeys: options.jwks } : {}),
        algorithms: options.algorithms ? checkAlgorithms(options.algorithms, 'auth.algorithms') : [...ASYMMETRIC_ALGORITHMS],
        clockToleranceSec: tolerance,
        jwksCooldownMs: (options.jwksCooldownSeconds ?? 30) * 1000,
        jwksCacheMaxAgeMs: 10 * 60_000,
        now,
      });
    }
    const intro = options.introspection;
    if (intro) {
      const secret = intro.clientSecret ?? (intro.clientSecretEnv ? process.env[intro.clientSecretEnv] : undefined);
      if (!secret)
        throw new TypeError(
          `auth.introspection needs clientSecret or clientSecretEnv${intro.clientSecretEnv ? ` (environment variable ${intro.clientSecretEnv} is not set)` : ''}`,
        );
      if (!intro.endpoint && !metadata) throw new TypeError('auth.introspection needs an endpoint, or auth.issuer to discover it');
      const endpoint = intro.endpoint;
      this.introspection = new IntrospectionVerifier({
        endpoint: endpoint
          ? async () => endpoint
          : async () => {
              const found = (await metadata!.get()).introspection_endpoint;
              if (typeof found !== 'string')
                throw new AuthUnavailableError(`the metadata of ${options.issuer} names no introspection_endpoint; set auth.introspection.endpoint`);
              return found;
            },
        clientId: intro.clientId,
        clientSecret: secret,
        issuer: options.issuer,
        audience,
        requireAudience: intro.requireAudience ?? true,
        clockToleranceSec: tolerance,
        timeoutMs: 5_000,
        now,
      });
    }
    if (!this.apiKeys && !this.jwt && !this.introspection) throw new TypeError('auth needs an issuer (OAuth tokens), introspection, or apiKeys');
  }

  /**
   * A verified OAuth token's principal still in the cache (never past its
   * expiry), found by `digest` = tokenDigest(token); undefined otherwise.
   * Synchronous, for the hot path: an entry is only ever made for a token
   * that passed every check, so a hit needs no new one. API keys are never
   * cached here: they are matched by verify().
   */
  cached(digest: string): AuthInfo | undefined {
    return this.cache.get(digest);
  }

  /**
   * The caller `token` stands for; throws InvalidTokenError (401) or
   * AuthUnavailableError (503). `digest`: tokenDigest(token), when the
   * caller already has it.
   */
  verify(token: string, digest?: string): Promise<AuthInfo> {
    const id = digest ?? tokenDigest(token);
    if (this.apiKeys) {
      const key = this.apiKeys.match(Buffer.from(id, 'base64'));
      if (key) return Promise.resolve(key);
    }
    const cached = this.cache.get(id);
    if (cached) return Promise.resolve(cached);
    let pending = this.inflight.get(id);
    if (!pending) {
      if (this.inflight.size >= MAX_PENDING_VERIFICATIONS) {
        return Promise.reject(new AuthUnavailableError(`more than ${MAX_PENDING_VERIFICATIONS} tokens are being verified at once`));
      }
      pending = this.check(token, id);
      this.inflight.set(id, pending);
      const done = () => this.inflight.delete(id);
      pending.then(done, done);
    }
    return pending;
  }

  private async check(token: string, id: string): Promise<AuthInfo> {
    let verified: { info: AuthInfo; expiresAtMs: number };
    let cacheMs: number;
    if (this.jwt && COMPACT_JWS.test(token)) {
      verified = await this.jwt.verify(token);
      cacheMs = this.jwtCacheMs;
    } else if (this.introspection) {
      verified = await this.introspection.verify(token);
      cacheMs = this.introspectionCacheMs;
    } else {
      throw new InvalidTokenError(this.jwt ? 'the access token is not a JWT' : 'the token is not a valid API key');
    }
    const info = this.withTenant(verified.info);
    this.cache.set(id, info, verified.expiresAtMs, cacheMs);
    return info;
  }

  /** The caller with its tenant from `tenantClaim`, when one is configured; a token that names none is refused (no tenant-less caller slips into a tenanted server). */
  private withTenant(info: AuthInfo): AuthInfo {
    if (this.tenantClaim === undefined) return info;
    const tenant = info.claims[this.tenantClaim];
    if (typeof tenant !== 'string' || !tenant) throw new InvalidTokenError(`the access token has no "${this.tenantClaim}" claim naming its tenant`);
    return Object.freeze({ ...info, tenant });
  }
}

/**
 * `scopesSupported` is what clients ask for first; `offline_access` asks for
 * refresh tokens, which are no requirement of this resource
 * (authorization/index "Refresh Tokens": servers SHOULD NOT list it).
 */
function checkAdvertisedScopes(scopes: readonly string[] | undefined): void {
  if (scopes === undefined) return;
  checkScopeList(scopes, 'auth.scopesSupported');
  if (scopes.includes('offline_access'))
    throw new TypeError('auth.scopesSupported must not list offline_access: refresh tokens are a client matter, not something this server needs');
}
