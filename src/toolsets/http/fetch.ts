import { UrlRefusal, show, type UrlPolicy } from '../../policy/urls.js';
import { nodeTls } from '../../runtime/lazy-tls.js';
import type { ResolvedHttpOptions } from './options.js';
import { isRedirect, redirectedHop, type HopState } from './redirects.js';
import { sendHop, type HopResponse } from './send.js';

export interface FetchOutcome {
  response: HopResponse;
  finalUrl: URL;
  /** Every URL that answered with a redirect, in order. */
  redirects: string[];
}

/**
 * Follows redirects by hand so that every hop goes through the whole URL
 * policy again (scheme, host lists, one resolution, every address checked,
 * connection pinned): a public page cannot bounce the request to
 * 127.0.0.1 or a metadata address.
 */
export async function fetchFollowing(policy: UrlPolicy, first: HopState, options: ResolvedHttpOptions, signal: AbortSignal): Promise<FetchOutcome> {
  const ca = options.ca === undefined ? undefined : [...nodeTls().rootCertificates, ...(Array.isArray(options.ca) ? options.ca : [options.ca])];
  const redirects: string[] = [];
  let hop = first;
  for (;;) {
    const target = await policy.check(hop.url, signal);
    const response = await sendHop({
      target,
      method: hop.method,
      headers: hop.headers,
      body: hop.body,
      signal,
      maxBytes: options.maxResponseBytes,
      skipBody: (status, headers) => isRedirect(status, headers.location),
      ca,
      dial: options.dialOverride,
    });
    const location = response.headers.location;
    if (!isRedirect(response.status, location)) return { response, finalUrl: hop.url, redirects };
    if (redirects.length >= options.maxRedirects) {
      throw new UrlRefusal(
        `Stopped after ${options.maxRedirects} redirects (the last one, from ${show(hop.url.href)}, pointed to ${show(location)}). Fetch the final URL directly, or check for a redirect loop.`,
      );
    }
    redirects.push(hop.url.href);
    hop = redirectedHop(policy, hop, response.status, location);
  }
}
