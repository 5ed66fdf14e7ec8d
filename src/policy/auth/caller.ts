/**
 * Who is calling, as one object from the transport to every stage, store and
 * audit record. Per-caller state (stored results, rate limits, task owners,
 * legacy sessions, `requestState`) is keyed by `callerKey(caller)` and
 * nothing else, so that adding a field that separates callers (the tenant)
 * changes one function, not every store.
 */

/**
 * How the caller was established: an OAuth access token checked as a JWT or
 * by introspection, an API key, the server's own `authenticate` hook, the
 * transport itself (a stdio `principal`, an in-memory pair, a string given to
 * `server.connect`), or nobody (`ANONYMOUS_CALLER`).
 */
export type CallerMethod = 'jwt' | 'introspection' | 'api-key' | 'custom' | 'transport' | 'anonymous';

/** Who is calling, as the transport verified it. The credential itself is never kept here. */
export interface Caller {
  /**
   * The stable identifier within the tenant: the token's `sub` (or
   * `client:<client_id>`), an API key's principal, a hook's id. What
   * `ctx.principal` holds. `'anonymous'` for ANONYMOUS_CALLER (a log line
   * prints something), which `method: 'anonymous'` tells apart from an
   * authenticated caller of that name.
   */
  readonly id: string;
  /** The token's `sub`, when it has one. */
  readonly subject?: string;
  /** The OAuth client the token was issued to (`client_id`, `azp`), when known. */
  readonly clientId?: string;
  /**
   * The scopes granted. Present: tools' scope requirements are enforced
   * against them. Absent (a transport caller, a custom hook that returned
   * none, the anonymous caller): no scope check applies.
   */
  readonly scopes?: readonly string[];
  /** The verified claims (JWT payload or introspection response); empty when there were none. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** When the credential stops being valid, in seconds since the epoch. */
  readonly expiresAt?: number;
  /** How the caller was established. */
  readonly method: CallerMethod;
  /**
   * The tenant the caller belongs to: from the token claim `tenantClaim`
   * names, an API key's `tenant`, a hook's answer or the transport's caller.
   * Two callers with the same `id` in different tenants share nothing.
   */
  readonly tenant?: string;
}

/** The caller of a request nobody authenticated (no authorization configured, an anonymous connection). */
export const ANONYMOUS_CALLER: Caller = Object.freeze({ id: 'anonymous', claims: Object.freeze({}), method: 'anonymous' as const });

/**
 * The one key every per-caller store and limit uses. A caller without a
 * tenant keys on its id as it is (what stores held before tenants existed),
 * unless the id starts with "[" or holds a NUL; a tenant's callers, and those
 * ids, key on the JSON of [tenant or null, id]. A plain key never starts with
 * "[", an encoded one always does, and JSON is one-to-one: no choice of id or
 * tenant reaches another caller's state. Keys never hold a NUL (which
 * PostgreSQL text refuses). The anonymous caller's key is '' (no
 * authenticated caller has an empty id), not its id: a principal named
 * "anonymous" shares nothing with it.
 */
export function callerKey(caller: Caller): string {
  if (caller.method === 'anonymous') return '';
  const { id, tenant } = caller;
  if (tenant === undefined && !id.startsWith('[') && !id.includes('\u0000')) return id;
  return JSON.stringify([tenant ?? null, id]);
}

/** Whether nobody authenticated this caller (callerFrom never gives another caller the method 'anonymous'). */
export function isAnonymous(caller: Caller): boolean {
  return caller.method === 'anonymous';
}

// Callers a transport named by a bare id: they never carried scopes or claims, and the older `auth` field left them out.
const NAMED_BY_ID = new WeakSet<Caller>();

/**
 * What the deprecated `auth` field holds for `caller`: the caller itself,
 * unless nobody authenticated it or the transport named it by a bare id
 * (a stdio `principal`), for which `auth` was always undefined. Only the
 * deprecated getters read it; scope checks look at `caller.scopes`, absent
 * for both of those.
 */
export function authInfoOf(caller: Caller): Caller | undefined {
  return caller.method === 'anonymous' || NAMED_BY_ID.has(caller) ? undefined : caller;
}

/** What the deprecated `principal` field holds for `caller`: its id, undefined for the anonymous caller. */
export function principalOf(caller: Caller): string | undefined {
  return caller.method === 'anonymous' ? undefined : caller.id;
}

/**
 * A caller from what a transport hands `server.connect`: a principal id (a
 * transport caller with no scopes), a Caller (kept as it is when well formed,
 * so caches keyed by the verified object keep working), or undefined
 * (ANONYMOUS_CALLER). Anything else is a bug in the transport: TypeError.
 */
export function callerFrom(given: string | Caller | undefined): Caller {
  if (given === undefined || given === '') return ANONYMOUS_CALLER;
  if (typeof given === 'string') {
    const named: Caller = Object.freeze({ id: given, claims: Object.freeze({}), method: 'transport' as const });
    NAMED_BY_ID.add(named);
    return named;
  }
  if (typeof given !== 'object' || given === null || typeof given.id !== 'string' || !given.id) {
    throw new TypeError('connect: "caller" must be a principal id or a Caller with a non-empty "id"');
  }
  if (given.tenant !== undefined && (typeof given.tenant !== 'string' || !given.tenant))
    throw new TypeError('connect: a caller\'s "tenant" must be a non-empty string');
  if (given.scopes !== undefined && (!Array.isArray(given.scopes) || !given.scopes.every((s) => typeof s === 'string'))) {
    throw new TypeError('connect: a caller\'s "scopes" must be an array of strings');
  }
  const wellFormed = typeof given.method === 'string' && given.method !== 'anonymous' && typeof given.claims === 'object' && given.claims !== null;
  if (wellFormed) return given;
  const method = typeof given.method === 'string' && given.method !== 'anonymous' ? given.method : 'transport';
  return Object.freeze({ ...given, claims: Object.freeze({ ...(given.claims ?? {}) }), method });
}
