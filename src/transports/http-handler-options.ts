import type { ResourceServerOptions } from '../policy/auth/options.js';
import { resolveHttpLimits, type HttpRequestLimitOptions } from './http-limits.js';

/**
 * The checks of createHttpHandler's options that need none of the HTTP code: the path, the
 * limits, and how authentication is given. Both entry points run them before returning, so a
 * bad option throws the same TypeError or RangeError at once from `toolwright` (whose handler
 * loads the HTTP code in the background) as from `toolwright/http`.
 */
export function checkHttpHandlerOptions(
  options: HttpRequestLimitOptions & { path?: string; resource?: string; authenticate?: unknown; auth?: ResourceServerOptions },
): void {
  const path = options.path ?? '/mcp';
  if (!path.startsWith('/') || /[?#]/.test(path))
    throw new TypeError(`HTTP: path must start with "/" and have no query or fragment, got ${JSON.stringify(path)}`);
  resolveHttpLimits(options);
  checkAuthorizationOptions(options, options.resource);
}

/**
 * `authenticate` or `auth`, never both; one canonical resource URI, absolute and without a
 * fragment, which OAuth cannot work without. Returns that URI.
 */
export function checkAuthorizationOptions(options: { authenticate?: unknown; auth?: ResourceServerOptions }, resource: string | undefined): string | undefined {
  if (!options.authenticate && !options.auth) return undefined;
  if (options.authenticate && options.auth) throw new TypeError('HTTP: give either an authenticate hook or auth options, not both');
  const auth = options.auth;
  if (auth?.resource !== undefined && resource !== undefined && auth.resource !== resource) {
    throw new TypeError(`HTTP: resource (${resource}) and auth.resource (${auth.resource}) differ; give the canonical resource URI once`);
  }
  const canonical = auth?.resource ?? resource;
  const namesResource = auth && (auth.issuer !== undefined || auth.introspection !== undefined || !!auth.authorizationServers?.length);
  if (namesResource && canonical === undefined) {
    throw new TypeError(
      'HTTP: OAuth needs the canonical resource URI: set `resource` to the URL clients use (and tokens name), e.g. https://mcp.example.com/mcp',
    );
  }
  if (canonical !== undefined) assertAbsoluteUrl(canonical);
  return canonical;
}

function assertAbsoluteUrl(resource: string): void {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw new TypeError(`HTTP: the resource URI must be an absolute URL, e.g. https://mcp.example.com/mcp; got ${JSON.stringify(resource.slice(0, 100))}`);
  }
  if (url.hash) throw new TypeError('HTTP: the resource URI must not have a fragment (RFC 8707 §2)');
}
