import { UrlRefusal } from '../../policy/urls.js';
import { HEADER_NAME_TOKEN } from '../../protocol/header-params.js';

interface HeaderLimits {
  /** Most headers a caller may send (default 50). */
  maxHeaders: number;
  /** Most bytes of names and values together (default 16 KiB). */
  maxHeaderBytes: number;
}

/**
 * Headers about the connection, which this server owns, never the caller:
 * the hop-by-hop set of RFC 9110 §7.6.1 (plus the legacy Proxy-Connection
 * and h2c's HTTP2-Settings), every `proxy-*` field (addressed to a proxy,
 * not the origin), and whatever the caller's own Connection header names
 * (a proxy MUST remove those, §7.6.1). `content-length`, `expect` and
 * `accept-encoding` are set by the fetcher itself so the body it sends and
 * the decoding it does stay right. All are dropped silently: the request
 * still means the same thing.
 */
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'http2-settings',
  'content-length',
  'accept-encoding',
  'expect',
]);

function isConnectionSpecific(lower: string, namedInConnection: ReadonlySet<string>): boolean {
  return DROPPED.has(lower) || lower.startsWith('proxy-') || namedInConnection.has(lower);
}

/** The field names listed in every Connection header the caller sent (names compare case-insensitively). */
function namesInConnection(headers: Record<string, string>): Set<string> {
  const names = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'connection' || typeof value !== 'string') continue;
    for (const token of value.split(',')) {
      const trimmed = token.trim().toLowerCase();
      if (trimmed !== '') names.add(trimmed);
    }
  }
  return names;
}

/** RFC 9110 token characters: what a header name may be made of. */
const TOKEN = HEADER_NAME_TOKEN;
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
  const namedInConnection = namesInConnection(headers);
  let bytes = 0;
  for (const name of names) {
    const value = headers[name];
    if (!TOKEN.test(name))
      throw new UrlRefusal(`Request header name ${JSON.stringify(name.slice(0, 64))} is not valid; names are letters, digits and !#$%&'*+-.^_\`|~.`);
    if (typeof value !== 'string' || !FIELD_VALUE.test(value)) {
      throw new UrlRefusal(`Request header ${name} has an invalid value; values cannot contain line breaks or control characters.`);
    }
    const lower = name.toLowerCase();
    if (lower === 'host' || lower === ':authority')
      throw new UrlRefusal('The Host header cannot be set: it always names the host of the URL. Put the host you want in the URL instead.');
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
    if (bytes > limits.maxHeaderBytes) throw new UrlRefusal(`Request headers exceed ${limits.maxHeaderBytes} bytes in all; send fewer or shorter headers.`);
    if (isConnectionSpecific(lower, namedInConnection)) continue;
    out[lower] = value;
  }
  return out;
}

/**
 * The only headers that follow a redirect to another origin: they describe
 * the request and carry no credentials. Everything else the caller set —
 * Authorization and Cookie, but equally X-Api-Key, Private-Token or any
 * other name a secret may hide under — stays with the origin it was given
 * for (the fetch standard drops only Authorization; a model's headers are
 * not known to be harmless, so this keeps a safe-list instead).
 */
const CROSS_ORIGIN_SAFE = new Set([
  'accept',
  'accept-language',
  'accept-encoding',
  'content-type',
  'content-language',
  'content-encoding',
  'user-agent',
  'cache-control',
  'pragma',
]);

/** The headers of a redirect hop that leaves the origin: the safe-list only. */
export function crossOriginHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => CROSS_ORIGIN_SAFE.has(name)));
}
