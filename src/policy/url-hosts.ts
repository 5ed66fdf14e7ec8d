/**
 * Host name patterns for allow- and deny-lists: an exact host
 * (`api.example.com`, `93.184.215.14`, `[2606:4700::1111]`) or a suffix
 * pattern `*.example.com`, which matches every subdomain but not
 * `example.com` itself (list both to allow both). Matching is on the host
 * as the WHATWG URL parser normalized it: lower case, punycode, IP literals
 * in canonical form, a trailing dot removed.
 */
export class HostPatterns {
  private readonly exact = new Set<string>();
  private readonly suffixes: string[] = [];

  constructor(readonly patterns: readonly string[]) {
    for (const raw of patterns) {
      const pattern = normalizeHost(raw.trim());
      if (pattern.startsWith('*.') && pattern.length > 2 && !pattern.slice(2).includes('*')) this.suffixes.push(pattern.slice(1));
      else if (pattern.length > 0 && !pattern.includes('*') && !pattern.includes('/')) this.exact.add(canonicalHost(pattern));
      else throw new RangeError(`"${raw}" is not a host pattern: use an exact host such as api.example.com or a suffix pattern such as *.example.com`);
    }
  }

  matches(host: string): boolean {
    const h = normalizeHost(host);
    return this.exact.has(h) || this.suffixes.some((suffix) => h.endsWith(suffix) && h.length > suffix.length);
  }
}

/**
 * Names that always mean this machine or a cloud metadata service, refused
 * before any lookup (RFC 6761 reserves `localhost` and `*.localhost`; the
 * metadata names resolve to 169.254.169.254 inside the clouds that use them).
 */
const RESERVED_NAMES = new Set([
  'localhost',
  'localhost.localdomain',
  'ip6-localhost',
  'ip6-loopback',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

/** Why a host name is refused whatever it resolves to, or undefined. */
export function reservedHostName(host: string): string | undefined {
  const h = normalizeHost(host);
  if (RESERVED_NAMES.has(h) || h.endsWith('.localhost')) {
    return h.includes('metadata') || h.startsWith('instance-data') ? 'a cloud metadata service name' : 'a name for this machine';
  }
  return undefined;
}

/** Lower case without a trailing dot (`example.com.` is `example.com`). */
export function normalizeHost(host: string): string {
  const h = host.toLowerCase();
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** Puts a configured host through the URL parser so `127.1` or `[::FFFF:7f00:1]` compare as the parser writes them. */
function canonicalHost(host: string): string {
  try {
    return normalizeHost(new URL(`http://${host}/`).hostname);
  } catch {
    return host;
  }
}
