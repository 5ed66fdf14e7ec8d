/**
 * Redirect URIs: what a client may register, and whether a requested one is registered.
 * OAuth 2.1 §4.1.1 / §7.5.3: exact string comparison, except the port of a loopback redirect
 * (RFC 8252 §7.3), which a native app picks when it starts. Nothing else is loosened: no
 * prefix, no path or query variation, no case folding, no decoding.
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const MAX_URI_CHARS = 2000;
export const MAX_REDIRECT_URIS = 10;
/** RFC 8252 §7.1 private-use schemes: reverse domain names, so they hold a dot. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'blob:', 'vbscript:', 'about:', 'ftp:', 'ws:', 'wss:']);

/** Why `uri` cannot be registered, or undefined when it can. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || !uri) return 'each redirect URI must be a non-empty string';
  if (uri.length > MAX_URI_CHARS) return `a redirect URI is longer than ${MAX_URI_CHARS} characters`;
  if (/[\s\u0000-\u001f\u007f\\]/.test(uri)) return 'a redirect URI holds whitespace, control characters or backslashes';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'a redirect URI is not an absolute URL';
  }
  if (uri.includes('#') || url.hash) return 'a redirect URI must not have a fragment (RFC 6749 §3.1.2)';
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(uri)) return 'a redirect URI must not hold user information (user@host)';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:')
    return LOOPBACK_HOSTS.has(url.hostname) ? undefined : 'http redirect URIs are for loopback addresses only (127.0.0.1, [::1], localhost); use https';
  if (REFUSED_SCHEMES.has(url.protocol)) return `redirect URIs with the ${url.protocol.slice(0, -1)} scheme are refused`;
  if (PRIVATE_USE_SCHEME.test(url.protocol)) return undefined;
  return 'a redirect URI must be https, http on a loopback address, or an app scheme in reverse-domain form (com.example.app:/callback)';
}

/**
 * Whether `requested` is one of `registered`: the same string, or a loopback http URI that
 * differs from a registered one in its port only. The comparison rebuilds the registered URI
 * with the requested port and compares the strings, so every other part, spelled exactly
 * (encoding, case, trailing slash, query), must match as registered.
 */
export function redirectUriRegistered(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  let asked: URL;
  try {
    asked = new URL(requested);
  } catch {
    return false;
  }
  if (asked.protocol !== 'http:' || !LOOPBACK_HOSTS.has(asked.hostname)) return false;
  for (const uri of registered) {
    let candidate: URL;
    try {
      candidate = new URL(uri);
    } catch {
      continue;
    }
    if (candidate.protocol !== 'http:' || candidate.hostname !== asked.hostname) continue;
    candidate.port = asked.port;
    // Both spelled the parser's way: the registered one must have been written so too (`withPort` below).
    if (candidate.href === requested && withPort(uri, candidate.port) === requested) return true;
  }
  return false;
}

/** The registered text with its port replaced, spelled as written (no normalization of the rest). */
function withPort(uri: string, port: string): string {
  const match = /^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::\d+)?(\/.*|\?.*)?$/.exec(uri);
  if (!match) return '';
  return `${match[1]}${port ? `:${port}` : ''}${match[2] ?? ''}`;
}
