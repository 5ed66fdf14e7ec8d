/** The parameters of a `Bearer` (RFC 6750 §3, RFC 9728 §5.1) or `DPoP` (RFC 9449 §7.1) challenge. */
export interface BearerChallenge {
  /** Which scheme the challenge was for. */
  scheme?: 'Bearer' | 'DPoP';
  error?: string;
  errorDescription?: string;
  /** Space-separated scopes the resource asks for. */
  scope?: string;
  /** Where the Protected Resource Metadata is (RFC 9728). */
  resourceMetadata?: string;
}

const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
/** More than any honest header, less than a hostile one could make us parse. */
const MAX_HEADER = 8 * 1024;

/**
 * Reads the first `Bearer` or `DPoP` challenge of a WWW-Authenticate header
 * (RFC 7235 §4.1: one or more challenges, each a scheme and auth-params of
 * token or quoted-string values; fetch joins repeated headers with ", ").
 * Undefined when there is none. Parameter names are case-insensitive; the
 * first occurrence of a parameter wins.
 */
export function parseBearerChallenge(header: string | null | undefined): BearerChallenge | undefined {
  if (!header || header.length > MAX_HEADER) return undefined;
  for (const challenge of parseChallenges(header)) {
    const scheme = challenge.scheme.toLowerCase();
    if (scheme !== 'bearer' && scheme !== 'dpop') continue;
    const p = challenge.params;
    return {
      scheme: scheme === 'dpop' ? 'DPoP' : 'Bearer',
      ...(p.error !== undefined ? { error: p.error } : {}),
      ...(p.error_description !== undefined ? { errorDescription: p.error_description } : {}),
      ...(p.scope !== undefined ? { scope: p.scope } : {}),
      ...(p.resource_metadata !== undefined ? { resourceMetadata: p.resource_metadata } : {}),
    };
  }
  return undefined;
}

interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

function parseChallenges(header: string): Challenge[] {
  const challenges: Challenge[] = [];
  let i = 0;
  const skip = (chars: RegExp) => {
    while (i < header.length && chars.test(header[i])) i++;
  };
  const token = () => {
    const start = i;
    while (i < header.length && TOKEN.test(header[i])) i++;
    return header.slice(start, i);
  };
  let current: Challenge | undefined;
  while (i < header.length) {
    skip(/[\s,]/);
    const start = i;
    const name = token();
    if (!name) {
      i++; // not a token: step over it (a hostile header must not stall us)
      continue;
    }
    skip(/[ \t]/);
    if (header[i] === '=' && current) {
      i++;
      skip(/[ \t]/);
      const value = header[i] === '"' ? quoted() : token68();
      const key = name.toLowerCase();
      if (!Object.hasOwn(current.params, key)) Object.defineProperty(current.params, key, { value, enumerable: true });
      continue;
    }
    // A token not followed by "=" starts a new challenge (its scheme); a token68 after it is skipped.
    i = start + name.length;
    current = { scheme: name, params: Object.create(null) as Record<string, string> };
    challenges.push(current);
  }
  return challenges;

  function quoted(): string {
    let out = '';
    i++; // opening quote
    while (i < header.length && header[i] !== '"') {
      if (header[i] === '\\' && i + 1 < header.length) i++;
      out += header[i++];
    }
    i++; // closing quote
    return out;
  }

  function token68(): string {
    const start = i;
    while (i < header.length && !/[\s,]/.test(header[i])) i++;
    return header.slice(start, i);
  }
}

/** Space-separated scopes as a set in their first order, empty strings dropped. */
export function scopeSet(...scopes: Array<string | undefined>): string[] {
  const out = new Set<string>();
  for (const s of scopes) for (const one of (s ?? '').split(/\s+/)) if (one) out.add(one);
  return [...out];
}
