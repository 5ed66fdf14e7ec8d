/**
 * Audience matching (RFC 8707 §2, authorization/index "Canonical Server URI"):
 * a URI audience is compared in its canonical form, so an upper-case scheme
 * or host, or a default port, matches; anything else must be equal.
 */
function canonicalAudience(value: string): string {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) return value;
  try {
    return new URL(value).href;
  } catch {
    return value;
  }
}

export class AudienceMatcher {
  private readonly accepted: ReadonlySet<string>;

  constructor(readonly audiences: readonly string[]) {
    this.accepted = new Set(audiences.map(canonicalAudience));
  }

  /** Whether an `aud` claim (a string or an array of them) names this server. */
  matches(aud: unknown): boolean {
    if (typeof aud === 'string') return this.accepted.has(canonicalAudience(aud));
    if (Array.isArray(aud)) return aud.some((a) => typeof a === 'string' && this.accepted.has(canonicalAudience(a)));
    return false;
  }
}
