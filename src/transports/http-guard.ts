import type { RequestHeaders as IncomingHttpHeaders } from './http-request.js';

/**
 * DNS-rebinding protection (streamable-http.mdx "Security"): the Host header
 * must name this server and a present Origin must be allowed. On by default
 * for loopback binds, where a browser page is the likely attacker.
 */
export interface HostGuardOptions {
  /** Host names (no port) accepted in the Host header; undefined = any. */
  allowedHosts?: string[];
  /** Origins accepted (exact, e.g. "http://localhost:5173", or "http://localhost:*" for any port). */
  allowedOrigins?: string[];
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopbackBind(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The guard a bind address gets when the user configured none. */
export function defaultGuard(bindHost: string): Required<HostGuardOptions> | HostGuardOptions {
  if (!isLoopbackBind(bindHost)) return { allowedHosts: undefined, allowedOrigins: [] };
  return {
    allowedHosts: LOOPBACK_HOSTS,
    allowedOrigins: LOOPBACK_HOSTS.map((h) => `http://${h}:*`),
  };
}

/** Returns why the request must be refused with 403, or undefined. */
export function guardProblem(headers: IncomingHttpHeaders, guard: HostGuardOptions): string | undefined {
  if (guard.allowedHosts) {
    const host = headers.host;
    if (typeof host !== 'string' || !host || !guard.allowedHosts.includes(hostnameOf(host).toLowerCase())) return 'Forbidden: Host header is not allowed';
  }
  const origin = headers.origin;
  if (origin !== undefined && (typeof origin !== 'string' || !originAllowed(origin, guard.allowedOrigins ?? []))) return 'Forbidden: Origin is not allowed';
  return undefined;
}

function hostnameOf(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

function originAllowed(origin: string, allowed: string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const base = `${url.protocol}//${url.hostname.includes(':') ? `[${url.hostname}]` : url.hostname}`.toLowerCase();
  const full = url.port ? `${base}:${url.port}` : base;
  return allowed.some((a) => {
    const rule = a.toLowerCase();
    return rule === full || rule === base || rule === '*' || (rule.endsWith(':*') && rule.slice(0, -2) === base);
  });
}
