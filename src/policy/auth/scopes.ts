/**
 * Scope strings (RFC 6749 §3.3): `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`,
 * separated by single spaces in a `scope` claim or parameter.
 */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

function isScopeToken(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 256 && SCOPE_TOKEN.test(value);
}

/** Throws a TypeError naming `where` unless `value` is an array of scope tokens. */
export function checkScopeList(value: unknown, where: string): readonly string[] {
  if (!Array.isArray(value)) throw new TypeError(`${where} must be an array of scope strings`);
  for (const scope of value) {
    if (!isScopeToken(scope))
      throw new TypeError(`${where} holds ${JSON.stringify(scope)}, which is not a scope (printable ASCII, no spaces, quotes or backslashes)`);
  }
  return [...new Set(value as string[])];
}

/**
 * The scopes a token grants: the `scope` claim (a space-separated string,
 * RFC 8693/9068), or `scp` (an array or string, as some providers send).
 * Anything that is not a scope token is dropped, never trusted.
 */
export function scopesOfClaims(claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp;
  const list = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  return [...new Set(list.filter(isScopeToken))];
}

/**
 * Broader scopes imply narrower ones (authorization/index "Step-Up": servers
 * MUST account for scope hierarchies). Built once from `{ broad: [narrower…] }`;
 * implication is transitive and cycles are harmless.
 */
export class ScopeHierarchy {
  private readonly closure = new Map<string, ReadonlySet<string>>();

  constructor(implies: Readonly<Record<string, readonly string[]>> = {}) {
    const direct = new Map(Object.entries(implies));
    for (const broad of direct.keys()) {
      const seen = new Set<string>([broad]);
      const todo = [broad];
      while (todo.length) {
        for (const narrower of direct.get(todo.pop()!) ?? []) {
          if (!seen.has(narrower)) {
            seen.add(narrower);
            todo.push(narrower);
          }
        }
      }
      this.closure.set(broad, seen);
    }
  }

  /** Every scope `granted` amounts to, its implied ones included. */
  expand(granted: readonly string[]): ReadonlySet<string> {
    const out = new Set<string>();
    for (const scope of granted) {
      const implied = this.closure.get(scope);
      if (implied) for (const s of implied) out.add(s);
      else out.add(scope);
    }
    return out;
  }
}
