/** Redirect statuses fetch follows. */
export const REDIRECT = new Set([301, 302, 303, 307, 308]);
/** Hops of one redirect chain, as fetch counts them (WHATWG Fetch "HTTP-redirect fetch" step 5). */
const MAX_REDIRECTS = 20;

/**
 * `fetcher(url, init)` with redirects followed as fetch follows them, but within `url`'s origin
 * only. A request to an MCP server or an upstream carries headers its sender chose for that
 * server (an API key; fetch drops only `Authorization` on the way to another origin) and, in its
 * body, a call's arguments: a redirect to another origin, at any hop, is the answer itself (the
 * caller reports its status), never followed. In a browser, whose fetch hides where a redirect
 * goes (an opaque redirect, status 0), no redirect is followed.
 */
export async function fetchWithinOrigin(url: URL, init: RequestInit, fetcher: typeof fetch = fetch): Promise<Response> {
  let target = url;
  let { method = 'GET', body } = init;
  for (let hop = 0; ; hop++) {
    const response = await fetcher(target, { ...init, method, body, redirect: 'manual' });
    const location = REDIRECT.has(response.status) ? response.headers.get('location') : null;
    if (location === null) return response;
    const next = new URL(location, target);
    if (next.origin !== url.origin || hop === MAX_REDIRECTS) return response;
    await response.body?.cancel().catch(() => {});
    // Fetch's rule (step 12): a 303, or a 301/302 after a POST, goes on as a GET without a body.
    if ((response.status === 303 && method !== 'HEAD') || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
    target = next;
  }
}
