import { UrlPolicy } from '../../policy/urls.js';
import { fetchFollowing } from '../../toolsets/http/fetch.js';
import { resolveHttpOptions } from '../../toolsets/http/options.js';
import { sendHop, type HopResponse } from '../../toolsets/http/send.js';

export type { HopResponse };

/**
 * The URL policy for addresses the operator wrote (baseUrl, the document's URL, a token URL
 * the document names): http(s) only, no credentials in the URL, the host resolved once and the
 * connection pinned to the checked address, cloud metadata, multicast and reserved addresses
 * refused. Private networks and this machine are allowed (an API beside the gateway is the
 * common case), and so is the URL's own port, only that one.
 */
export function operatorPolicy(url: URL): UrlPolicy {
  return new UrlPolicy({ allowPrivateNetworks: true, allowedPorts: [portOf(url)] });
}

export function portOf(url: URL): number {
  return url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
}

export interface OutboundRequest {
  url: URL;
  method: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: Buffer;
  signal: AbortSignal;
  maxBytes: number;
}

/**
 * One request, no redirect followed: a redirect is the API's answer, shown as such, so neither
 * credentials nor a body ever travel to a place the operator did not name.
 */
export async function sendOnce(policy: UrlPolicy, request: OutboundRequest): Promise<HopResponse> {
  const target = await policy.check(request.url, request.signal);
  return sendHop({ target, method: request.method, headers: request.headers, body: request.body, signal: request.signal, maxBytes: request.maxBytes });
}

/** A GET that follows up to 5 redirects, each one checked again (for the document only: it carries no credentials). */
export async function getFollowing(url: URL, signal: AbortSignal, maxBytes: number): Promise<HopResponse> {
  const options = resolveHttpOptions({ maxResponseBytes: maxBytes, maxRedirects: 5 });
  const outcome = await fetchFollowing(
    operatorPolicy(url),
    { url, method: 'GET', headers: { accept: 'application/json, application/yaml, text/yaml, */*', 'user-agent': 'toolwright-gateway' } },
    options,
    signal,
  );
  return outcome.response;
}
