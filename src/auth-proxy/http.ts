import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditReason } from '../audit/record.js';
import { readNodeCapped } from '../io/read-node-capped.js';
import { noteRefused } from './audit.js';

/** Largest form or JSON body the facade reads (registration documents and token requests are small). */
const MAX_BODY_BYTES = 64 * 1024;

export class BadBody extends Error {}

/** The request body as text, refused past 64 KiB (413 is the caller's answer). */
export async function readText(req: IncomingMessage): Promise<string> {
  return (await readNodeCapped(req, MAX_BODY_BYTES, () => new BadBody('the request body is too large'))).toString('utf8');
}

/** An application/x-www-form-urlencoded body; a parameter given twice is refused (RFC 6749 §3.1). */
export async function readForm(req: IncomingMessage): Promise<Map<string, string>> {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new BadBody('send the parameters as application/x-www-form-urlencoded');
  return singleValued(new URLSearchParams(await readText(req)));
}

/** Query or form parameters, each at most once (RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once"). */
export function singleValued(params: URLSearchParams): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of params) {
    if (out.has(key)) throw new BadBody(`the parameter "${key.slice(0, 40)}" is given more than once`);
    out.set(key, value);
  }
  return out;
}

export function queryOf(req: IncomingMessage): URLSearchParams {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
}

/** JSON with no caching (RFC 6749 §5.1: token responses carry Cache-Control: no-store). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    pragma: 'no-cache',
    ...headers,
  });
  res.end(text);
}

/** An OAuth error answer (RFC 6749 §5.2): a code and a description with nothing secret in it. */
export function sendOAuthError(res: ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  noteRefused(res, error === 'slow_down' ? 'rate_limit' : (error as AuditReason));
  sendJson(res, status, { error, error_description: description }, headers);
}

/** Text made safe for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Headers of every page the facade shows: no script at all, no framing (clickjacking of the
 * consent button), no referrer (the query holds codes and state), no caching.
 */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** A page: `body` is HTML the caller built from escaped parts. */
export function sendPage(res: ServerResponse, status: number, title: string, body: string, headers: Record<string, string | string[]> = {}): void {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><meta name="viewport" content="width=device-width"><style>body{font:16px system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}code{word-break:break-all}button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
  res.writeHead(status, { ...PAGE_HEADERS, 'content-length': Buffer.byteLength(html), ...headers });
  res.end(html);
}

/**
 * An error shown as a page, never a redirect: what goes wrong before the redirect URI is known
 * to be the client's must not send the browser anywhere (RFC 6749 §4.1.2.1, OAuth 2.1 §4.1.2.1).
 */
export function sendErrorPage(
  res: ServerResponse,
  status: number,
  message: string,
  reason: AuditReason = status === 403 ? 'cross_site' : 'invalid_request',
): void {
  noteRefused(res, reason);
  sendPage(res, status, 'Sign-in failed', `<p>${escapeHtml(message)}</p><p>Close this page and start again from your application.</p>`);
}

export function redirect(res: ServerResponse, location: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(302, { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', ...headers });
  res.end();
}

/** One cookie's value from the Cookie header. */
export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
