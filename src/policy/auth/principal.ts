/**
 * Who is calling, as the transport verified it. `id` is the stable string
 * every per-caller facility keys on (`ctx.principal`, rate limits, audit
 * records, legacy sessions, stored results, `requestState`); the rest is for
 * tools that want to know more. The credential itself is never kept here.
 */
export interface AuthInfo {
  /** The principal: what `ctx.principal` holds and everything per-caller keys on. */
  readonly id: string;
  /** The token's `sub`, when it has one. */
  readonly subject?: string;
  /** The OAuth client the token was issued to (`client_id`, `azp`), when known. */
  readonly clientId?: string;
  /**
   * The scopes granted. Present: tools' scope requirements are enforced
   * against them. Absent (a custom `authenticate` hook that returned none):
   * no scope check applies.
   */
  readonly scopes?: readonly string[];
  /** The verified claims (JWT payload or introspection response). */
  readonly claims: Readonly<Record<string, unknown>>;
  /** When the credential stops being valid, in seconds since the epoch. */
  readonly expiresAt?: number;
  /** How the caller was verified. */
  readonly method: 'jwt' | 'introspection' | 'api-key' | 'custom';
}

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
    method: result.method ?? 'custom',
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
