import type { AudienceMatcher } from './audience.js';
import type { AuthInfo } from './principal.js';
import { AuthUnavailableError, InvalidTokenError } from './token-error.js';
import { principalOfToken } from './token-principal.js';

interface IntrospectionOptions {
  /** The endpoint, or how to learn it (discovery). */
  endpoint: () => Promise<string>;
  /** This resource server's credentials at the authorization server (client_secret_basic). */
  clientId: string;
  clientSecret: string;
  /** When set, an `iss` in the answer must equal it. */
  issuer?: string;
  audience: AudienceMatcher;
  /**
   * Whether an answer without `aud` is refused (default true): without an
   * audience nothing says the token was issued for this server.
   */
  requireAudience: boolean;
  clockToleranceSec: number;
  timeoutMs: number;
  now: () => number;
}

/**
 * Opaque tokens, checked with the authorization server (RFC 7662). Only an
 * answer with `"active": true` that passes the same checks as a JWT (expiry,
 * not-before, issuer, audience) authorizes; everything else is an invalid token.
 */
export class IntrospectionVerifier {
  constructor(private readonly options: IntrospectionOptions) {}

  async verify(token: string): Promise<{ info: AuthInfo; expiresAtMs: number }> {
    const answer = await this.ask(token);
    const { options } = this;
    if (answer.active !== true) throw new InvalidTokenError('the access token is not active (expired, revoked or unknown)');
    const nowSec = options.now() / 1000;
    const exp = typeof answer.exp === 'number' ? answer.exp : undefined;
    if (exp !== undefined && exp + options.clockToleranceSec <= nowSec) throw new InvalidTokenError('the access token expired');
    if (typeof answer.nbf === 'number' && answer.nbf > nowSec + options.clockToleranceSec) throw new InvalidTokenError('the access token is not yet valid');
    if (options.issuer !== undefined && answer.iss !== undefined && answer.iss !== options.issuer)
      throw new InvalidTokenError('the access token was issued by another authorization server');
    if (answer.aud === undefined ? options.requireAudience : !options.audience.matches(answer.aud)) {
      throw new InvalidTokenError('the access token was issued for another resource (audience mismatch)');
    }
    const clientId = typeof answer.client_id === 'string' ? answer.client_id : undefined;
    const info = principalOfToken(answer, clientId, exp, 'introspection');
    return { info, expiresAtMs: exp === undefined ? Infinity : (exp + options.clockToleranceSec) * 1000 };
  }

  private async ask(token: string): Promise<Record<string, unknown>> {
    const { options } = this;
    const endpoint = await options.endpoint();
    const credentials = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
    let res: Response;
    try {
      res = await fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        redirect: 'error',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (err) {
      throw new AuthUnavailableError('the introspection endpoint did not answer', { cause: err });
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new AuthUnavailableError(`the introspection endpoint answered HTTP ${res.status} (check introspection.clientId and clientSecret)`);
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch (err) {
      throw new AuthUnavailableError('the introspection endpoint answered something other than JSON', { cause: err });
    }
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new AuthUnavailableError('the introspection endpoint answered something other than a JSON object');
    return body as Record<string, unknown>;
  }
}
