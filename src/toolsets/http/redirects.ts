import { UrlRefusal, show, type UrlPolicy } from '../../policy/urls.js';
import { crossOriginHeaders } from './request-headers.js';

/** What one hop sends. */
export interface HopState {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that describe a body: they go when the body goes. */
const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location'];

export function isRedirect(status: number, location: string | undefined): location is string {
  return REDIRECTS.has(status) && typeof location === 'string' && location.length > 0;
}

/**
 * The request a redirect asks for, following the fetch standard's rules
 * (HTTP-redirect fetch): 303 turns any method but HEAD into a bodiless GET,
 * as 301 and 302 do for POST; 307 and 308 keep method and body. Only
 * credential-free headers (a safe-list) follow a redirect to another origin, and https never redirects to
 * plain http (the page asked for an encrypted exchange). The new URL goes
 * through the same URL policy as the first one (scheme, credentials; the
 * caller then re-checks its host and addresses).
 */
export function redirectedHop(policy: UrlPolicy, from: HopState, status: number, location: string): HopState {
  const url = policy.parse(location, from.url);
  if (from.url.protocol === 'https:' && url.protocol === 'http:') {
    throw new UrlRefusal(
      `Refused a redirect from ${show(from.url.href)} to ${show(url.href)}: https must not fall back to unencrypted http. Fetch the http URL directly if an unencrypted response is acceptable.`,
    );
  }
  let { method, body } = from;
  let headers = { ...from.headers };
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) delete headers[name];
  }
  if (url.origin !== from.url.origin) headers = crossOriginHeaders(headers);
  return { url, method, headers, body };
}
