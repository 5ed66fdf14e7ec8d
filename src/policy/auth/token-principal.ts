import type { AuthInfo } from './principal.js';
import { scopesOfClaims } from './scopes.js';
import { InvalidTokenError } from './token-error.js';

/**
 * The principal a verified OAuth token stands for, whether its claims came
 * from a JWT's payload or an introspection answer: `sub` when it names one,
 * else the client it was issued to (`client:<id>`); a token naming neither
 * is refused. The claims are frozen copies; the token itself is never kept.
 */
export function principalOfToken(
  claims: Record<string, unknown>,
  clientId: string | undefined,
  expiresAt: number | undefined,
  method: 'jwt' | 'introspection',
): AuthInfo {
  const subject = typeof claims.sub === 'string' && claims.sub ? claims.sub : undefined;
  const id = subject ?? (clientId ? `client:${clientId}` : undefined);
  if (!id) throw new InvalidTokenError('the access token names no subject or client');
  return Object.freeze({
    id,
    ...(subject ? { subject } : {}),
    ...(clientId ? { clientId } : {}),
    scopes: Object.freeze(scopesOfClaims(claims)),
    claims: Object.freeze({ ...claims }),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
    method,
  });
}
