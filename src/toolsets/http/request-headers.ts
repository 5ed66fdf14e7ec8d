import { UrlRefusal } from '../../policy/urls.js';

export interface HeaderLimits {
  /** Most headers a caller may send (default 50). */
  maxHeaders: number;
  /** Most bytes of names and values together (default 16 KiB). */
  maxHeaderBytes: number;
}

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) describe one connection, which this
 * server owns; `content-length` and `accept-encoding` are set by the
 * fetcher itself so the body it sends and the decoding it does stay right.
 * These are dropped silently: the request still means the same thing.
 */
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'accept-encoding',
  'expect',
]);

/** RFC 9110 token characters: what a header name may be made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Field values: visible characters, spaces and tabs; no CR, LF or NUL (header injection). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Checks the caller's headers and returns the ones to send, in lower case.
 * `Host` is refused rather than dropped: the Host header always names the
 * URL's host, because virtual-host routing to a host other than the checked
 * one is exactly what the URL policy forbids.
 */
export function sanitizeRequestHeaders(headers: Record<string, string> | undefined, limits: HeaderLimits): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  const names = Object.keys(headers);
  if (names.length > limits.maxHeaders) {
    throw new UrlRefusal(`Too many request headers (${names.length}); at most ${limits.maxHeaders} are allowed. Send only the headers the request needs.`);
  }
  let bytes = 0;
  for (const name of names) {
    const value = headers[name];
    if (!TOKEN.test(name)) throw new UrlRefusal(`Request header name ${JSON.stringify(name.slice(0, 64))} is not valid; names are letters, digits and !#$%&'*+-.^_\`|~.`);
    if (typeof value !== 'string' || !FIELD_VALUE.test(value)) {
      throw new UrlRefusal(`Request header ${name} has an invalid value; values cannot contain line breaks or control characters.`);
    }
    const lower = name.toLowerCase();
    if (lower === 'host' || lower === ':authority') throw new UrlRefusal('The Host header cannot be set: it always names the host of the URL. Put the host you want in the URL instead.');
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
    if (bytes > limits.maxHeaderBytes) throw new UrlRefusal(`Request headers exceed ${limits.maxHeaderBytes} bytes in all; send fewer or shorter headers.`);
    if (DROPPED.has(lower)) continue;
    out[lower] = value;
  }
  return out;
}

/** Headers that carry credentials: dropped when a redirect leaves the origin (as fetch does). */
export const CREDENTIAL_HEADERS: readonly string[] = ['authorization', 'cookie', 'proxy-authorization'];
