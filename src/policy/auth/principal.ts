import type { Caller } from './caller.js';

/**
 * The caller as the transport verified it: the same type as Caller (the
 * name it had before the caller was an object everywhere; kept so code
 * written against it still compiles).
 */
export type AuthInfo = Caller;

/** What an `authenticate` hook may return: a principal id, a richer AuthInfo, or undefined for "no valid credentials". */
export type AuthenticateResult = string | (Omit<Partial<AuthInfo>, 'scopes'> & { id: string; scopes?: readonly string[] | string }) | undefined;

/**
 * Normalizes a hook's answer: a string is a principal id; an object must
 * carry a non-empty string `id`. Undefined (or anything unusable) means
 * "not authenticated", never "anonymous".
 */
export function toAuthInfo(result: AuthenticateResult | null): AuthInfo | undefined {
  if (typeof result === 'string') return result ? { id: result, claims: {}, method: 'custom' } : undefined;
  if (!result || typeof result !== 'object' || typeof result.id !== 'string' || !result.id) return undefined;
  const scopes = scopeListOf(result.scopes);
  return Object.freeze({
    id: result.id,
    ...(typeof result.subject === 'string' ? { subject: result.subject } : {}),
    ...(typeof result.clientId === 'string' ? { clientId: result.clientId } : {}),
    ...(scopes ? { scopes } : {}),
    claims: Object.freeze({ ...(result.claims ?? {}) }),
    ...(typeof result.expiresAt === 'number' ? { expiresAt: result.expiresAt } : {}),
    ...(tenantOf(result.tenant) !== undefined ? { tenant: result.tenant } : {}),
    // Only the server's own constant is anonymous: an authenticated caller never shares its bucket.
    method: result.method && result.method !== 'anonymous' ? result.method : 'custom',
  });
}

/**
 * A hook's `scopes`: an array, or an OAuth-style space-separated string.
 * Anything else is a bug in the hook, and fails closed (the request gets a
 * 500) rather than silently switching the scope checks off.
 */
function scopeListOf(scopes: unknown): readonly string[] | undefined {
  if (scopes === undefined) return undefined;
  const list = typeof scopes === 'string' ? scopes.split(' ').filter(Boolean) : Array.isArray(scopes) ? scopes : undefined;
  if (!list?.every((s) => typeof s === 'string')) throw new TypeError('authenticate hook: "scopes" must be an array of strings or a space-separated string');
  return Object.freeze([...list]);
}

/** A hook's `tenant`: a non-empty string or nothing; anything else fails closed, as for scopes. */
function tenantOf(tenant: unknown): string | undefined {
  if (tenant === undefined) return undefined;
  if (typeof tenant !== 'string' || !tenant) throw new TypeError('authenticate hook: "tenant" must be a non-empty string');
  return tenant;
}
