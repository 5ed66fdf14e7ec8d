import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What keeps every page but the console's own away from its API (the hole of CVE-2025-49596,
 * where the MCP Inspector's local proxy took commands from any web page):
 * - the Host header must name the console's own address (DNS rebinding: a page on
 *   evil.example whose name resolves to 127.0.0.1 sends `Host: evil.example`);
 * - an API request must carry the per-run token in `X-Console-Token`: a custom header, which
 *   no page of another origin can add without a CORS preflight, and the console answers no
 *   preflight (it sends no `Access-Control-*` header, ever);
 * - a present Origin must be the console's own, and a present `Sec-Fetch-Site` must say
 *   same-origin: the browser's own word on who is asking.
 * The page itself (index.html, app.js, app.css) holds no secret and is served to any request
 * that passes the Host check; the token reaches it in the URL's fragment, which browsers
 * never send to a server.
 */
export interface ConsoleGuard {
  /** Host header values accepted, lower case, with their port (e.g. `127.0.0.1:4100`). */
  hosts: Set<string>;
  /** Origins accepted (e.g. `http://127.0.0.1:4100`). */
  origins: Set<string>;
  token: string;
}

const TOKEN_HEADER = 'x-console-token';

/** The Host and Origin values a listener on a loopback port answers to. */
export function loopbackGuard(port: number, token: string, hostnames: string[] = ['127.0.0.1', 'localhost', '[::1]']): ConsoleGuard {
  const hosts = new Set(hostnames.map((h) => `${h}:${port}`.toLowerCase()));
  return { hosts, origins: new Set([...hosts].map((h) => `http://${h}`)), token };
}

/** Why a request for the page or its assets is refused, or undefined. */
export function pageProblem(req: IncomingMessage, guard: ConsoleGuard): string | undefined {
  const host = req.headers.host?.toLowerCase();
  if (!host || !guard.hosts.has(host)) return 'this console answers only at its own address (Host header refused)';
  return undefined;
}

/** Why an API request is refused (403), or undefined. */
export function apiProblem(req: IncomingMessage, guard: ConsoleGuard): string | undefined {
  const page = pageProblem(req, guard);
  if (page) return page;
  const origin = req.headers.origin;
  if (origin !== undefined && !guard.origins.has(origin.toLowerCase())) return 'this console answers only its own page (Origin refused)';
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return 'this console answers only its own page (cross-site request refused)';
  // Browsers send Origin with every POST; a state-changing request without one is not from a page of ours.
  if (req.method !== 'GET' && origin === undefined && site === undefined) return 'this console answers only its own page (no Origin)';
  if (!tokenMatches(req.headers[TOKEN_HEADER], guard.token)) return 'the console token is missing or wrong: open the URL the console printed';
  return undefined;
}

function tokenMatches(given: string | string[] | undefined, token: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The page's Content-Security-Policy: its own script and styles only, no inline script, no
 * plugins, no framing by others, connections to itself only. Images and audio from results
 * arrive as data: URLs (base64 in the content blocks); nothing loads from elsewhere.
 * MCP Apps run in frames served from `app-frame/` under their own, stricter policy.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers every console response carries. */
export function securityHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
}
