import type { createRemoteJWKSet, JWTPayload, JWTVerifyGetKey } from 'jose';
import { loadJose } from '../../runtime/lazy-jose.js';
import type { AudienceMatcher } from './audience.js';
import type { AuthInfo } from './principal.js';
import { AuthUnavailableError, InvalidTokenError } from './token-error.js';
import { principalOfToken } from './token-principal.js';

type Jose = typeof import('jose');

/** Asymmetric JWS algorithms: the only ones a resource server can verify with published keys. */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

interface JwtVerifierOptions {
  issuer: string;
  audience: AudienceMatcher;
  /** The issuer's key set URL, or how to learn it (discovery). */
  jwksUri: () => Promise<string>;
  /** The keys given in process (the facade's own); when set, nothing is fetched. */
  localKeys?: () => Promise<{ keys: object[] }>;
  /** Allowed `alg` values; never `none`, never a symmetric (HS*) one. */
  algorithms: readonly string[];
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds. */
  clockToleranceSec: number;
  /** Least time between two key set fetches caused by an unknown `kid`. */
  jwksCooldownMs: number;
  /** Longest a fetched key set is used without refetching. */
  jwksCacheMaxAgeMs: number;
  now: () => number;
}

/** Checks an algorithm list for a public-key verifier; throws naming the first bad entry. */
export function checkAlgorithms(algorithms: unknown, where: string): string[] {
  if (!Array.isArray(algorithms) || algorithms.length === 0) throw new TypeError(`${where} must be a non-empty array of JWS algorithms`);
  for (const alg of algorithms) {
    if (!(ASYMMETRIC_ALGORITHMS as readonly unknown[]).includes(alg)) {
      throw new TypeError(
        `${where} may hold only asymmetric algorithms (${ASYMMETRIC_ALGORITHMS.join(', ')}); ${JSON.stringify(alg)} is refused: "none" and HS* would let anyone holding the public key mint tokens`,
      );
    }
  }
  return [...new Set(algorithms as string[])];
}

/**
 * Verifies JWT access tokens (RFC 9068) with the issuer's published keys:
 * signature (only allowed algorithms, the key chosen by `kid`), `iss`,
 * `exp` (required), `nbf` and `iat` with a small skew, and the audience.
 * The key set is cached; an unknown `kid` refetches it, at most once per
 * cooldown (a key rotation is picked up; a flood of made-up kids is not a flood of fetches).
 */
export class JwtVerifier {
  private keys?: ReturnType<typeof createRemoteJWKSet>;
  private keysFor?: string;

  constructor(private readonly options: JwtVerifierOptions) {}

  async verify(token: string): Promise<{ info: AuthInfo; expiresAtMs: number }> {
    const { options } = this;
    const { jwtVerify, errors } = await loadJose();
    const keys = await this.keySet();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: options.issuer,
        algorithms: [...options.algorithms],
        clockTolerance: options.clockToleranceSec,
        currentDate: new Date(options.now()),
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      throw mapJoseError(err, errors);
    }
    const nowSec = options.now() / 1000;
    if (typeof payload.iat === 'number' && payload.iat > nowSec + options.clockToleranceSec)
      throw new InvalidTokenError('the access token is not yet valid (issued in the future)');
    if (!options.audience.matches(payload.aud)) throw new InvalidTokenError('the access token was issued for another resource (audience mismatch)');
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : typeof payload.azp === 'string' ? payload.azp : undefined;
    // jose checked that `exp` is present (requiredClaims) and a number.
    const info = principalOfToken(payload, clientId, payload.exp, 'jwt');
    return { info, expiresAtMs: (payload.exp! + options.clockToleranceSec) * 1000 };
  }

  private async keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    const { localKeys } = this.options;
    if (localKeys) {
      const { createLocalJWKSet, errors } = await loadJose();
      const read = async () => createLocalJWKSet((await localKeys()) as Parameters<typeof createLocalJWKSet>[0]);
      const first = await read();
      // An unknown kid reads the keys once more before the token is refused: a key another
      // instance sharing the facade's store made a moment ago is then found.
      const lookup: JWTVerifyGetKey = async (header, token) => {
        try {
          return await first(header, token);
        } catch (err) {
          if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
          return (await read())(header, token);
        }
      };
      return lookup as ReturnType<typeof createRemoteJWKSet>;
    }
    const uri = await this.options.jwksUri();
    const { createRemoteJWKSet } = await loadJose();
    if (!this.keys || this.keysFor !== uri) {
      this.keys = createRemoteJWKSet(new URL(uri), {
        cooldownDuration: this.options.jwksCooldownMs,
        cacheMaxAge: this.options.jwksCacheMaxAgeMs,
        timeoutDuration: 5_000,
      });
      this.keysFor = uri;
    }
    return this.keys;
  }
}

/** What a client may be told about a failed check; an unreachable key set is our problem, not theirs. */
function mapJoseError(err: unknown, errors: Jose['errors']): Error {
  if (err instanceof errors.JWTExpired) return new InvalidTokenError('the access token expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return new InvalidTokenError('the access token is not yet valid');
    if (err.claim === 'iss') return new InvalidTokenError('the access token was issued by another authorization server');
    return new InvalidTokenError(`the access token's "${err.claim}" claim is missing or invalid`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported)
    return new InvalidTokenError('the access token is signed with an algorithm this server does not accept');
  if (err instanceof errors.JWKSNoMatchingKey) return new InvalidTokenError('the access token is signed with a key this server does not know');
  if (err instanceof errors.JWSSignatureVerificationFailed) return new InvalidTokenError('the access token signature is invalid');
  if (
    err instanceof errors.JWKSTimeout ||
    err instanceof errors.JWKSInvalid ||
    (err instanceof errors.JOSEError && err.code === 'ERR_JOSE_GENERIC') ||
    err instanceof TypeError
  ) {
    return new AuthUnavailableError('the authorization server key set could not be fetched', { cause: err });
  }
  if (err instanceof errors.JOSEError) return new InvalidTokenError('the access token is malformed');
  return new AuthUnavailableError('the access token could not be verified', { cause: err });
}
