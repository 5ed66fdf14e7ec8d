import { AuthorizationError } from '../errors.js';

/** A dotted-quad IPv4 address (as the URL parser writes one: 127.1 is already 127.0.0.1 there). */
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** Whether a host names this machine (RFC 8252 §7.3 loopback; "localhost" per RFC 6761). */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (IPV4.test(host)) return host.startsWith('127.');
  return host === '::1' || host === '0:0:0:0:0:0:0:1';
}

/**
 * Parses a URL an authorization flow will use, and holds it to the
 * authorization spec's communication security (security-considerations.mdx:
 * authorization server endpoints MUST be HTTPS): https, or http to this machine
 * only (a local development server). No credentials in it, no fragment.
 */
export function secureUrl(value: unknown, what: string): URL {
  let url: URL;
  try {
    if (typeof value !== 'string' || value.length > 2048) throw new TypeError('not a URL string');
    url = new URL(value);
  } catch {
    throw new AuthorizationError(`${what} is not a valid URL: ${describe(value)}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new AuthorizationError(`${what} must use https (http is allowed only to this machine): ${describe(value)}`);
  }
  if (url.username || url.password) throw new AuthorizationError(`${what} must not hold credentials`);
  if (url.hash) throw new AuthorizationError(`${what} must not have a fragment: ${describe(value)}`);
  return url;
}

/**
 * Whether the resource a Protected Resource Metadata document names covers
 * the server URL the client talks to (RFC 8707 §2, RFC 9728 §7.3): the same
 * origin, and its path a whole-segment prefix of the server's path. A token for
 * that resource may be sent to that server, and to no other.
 */
export function resourceCovers(resource: URL, server: URL): boolean {
  if (resource.origin !== server.origin || resource.search) return false;
  const base = resource.pathname.replace(/\/+$/, '');
  const path = server.pathname;
  return base === '' || path === base || path.startsWith(`${base}/`);
}

/**
 * The canonical form of a server's resource identifier (authorization
 * index.mdx "Canonical Server URI"): lowercase scheme and host (URL does this),
 * no fragment, no query, no trailing slash unless the path is the root.
 */
export function canonicalResource(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = '';
  copy.search = '';
  const href = copy.href;
  return copy.pathname === '/' ? href.replace(/\/$/, '') : href.replace(/\/+$/, '');
}

/**
 * The Protected Resource Metadata URLs to try when the server's challenge
 * names none (authorization-server-discovery.mdx): the path-based well-known
 * URI first, then the root one (RFC 9728 §3.1).
 */
export function protectedResourceWellKnown(server: URL): URL[] {
  const path = server.pathname.replace(/\/+$/, '');
  const root = new URL('/.well-known/oauth-protected-resource', server.origin);
  return path ? [new URL(`/.well-known/oauth-protected-resource${path}`, server.origin), root] : [root];
}

/**
 * Authorization server metadata URLs in the spec's priority order
 * (authorization-server-discovery.mdx "Authorization Server Metadata
 * Discovery"): RFC 8414 and OpenID Connect with the path inserted, then OpenID
 * Connect with the path appended; without a path, RFC 8414 then OpenID.
 */
export function authorizationServerWellKnown(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/+$/, '');
  if (!path) {
    return [new URL('/.well-known/oauth-authorization-server', issuer.origin), new URL('/.well-known/openid-configuration', issuer.origin)];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`/.well-known/openid-configuration${path}`, issuer.origin),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
  ];
}

/** A short, printable rendering of an untrusted value for an error message. */
export function describe(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const clean = text.replace(/[\x00-\x1F\x7F]/g, ' ');
  return JSON.stringify(clean.length > 200 ? `${clean.slice(0, 200)}…` : clean);
}
