import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { CheckedTarget } from '../../policy/urls.js';
import { nodeHttps } from '../../runtime/lazy-tls.js';

/** Where to connect for an address the policy approved: {address, port} in, {address, port} out. */
export type DialOverride = (target: { address: string; family: 4 | 6; port: number }) => { address: string; port: number };

interface HopRequest {
  target: CheckedTarget;
  method: string;
  /** Sanitized, lower-case request headers (never `host`). */
  headers: Record<string, string>;
  body?: Buffer;
  signal: AbortSignal;
  /** Most decoded body bytes kept; reading stops past it. */
  maxBytes: number;
  /** Whether to leave the body unread (a redirect's body is discarded). HEAD bodies are never read. */
  skipBody?: (status: number, headers: IncomingHttpHeaders) => boolean;
  /** Trusted CA certificates (PEM); replaces Node's list, so the caller includes `tls.rootCertificates`. */
  ca?: string | Buffer | Array<string | Buffer>;
  dial?: DialOverride;
}

export interface HopResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body went past `maxBytes` and was cut there. */
  truncated: boolean;
}

/**
 * Sends one request to the one address the URL policy checked. The socket
 * connects to that IP (no second lookup, so DNS rebinding cannot move it);
 * the Host header names the URL's host; for https the TLS server name is
 * the URL's host name and the certificate is verified against it (Node
 * checks identity against `servername`), so pinning the IP does not weaken
 * TLS. A fresh agent per request: a pooled socket is never reused for a
 * different check.
 */
export function sendHop(req: HopRequest): Promise<HopResponse> {
  const { target } = req;
  const secure = target.url.protocol === 'https:';
  const dialed = req.dial ? req.dial({ address: target.address, family: target.family, port: target.port }) : target;
  const options: RequestOptions = {
    host: dialed.address,
    port: dialed.port,
    family: isIP(dialed.address) || undefined,
    method: req.method,
    path: `${target.url.pathname}${target.url.search}`,
    headers: { ...req.headers, host: target.url.host, ...(req.body ? { 'content-length': String(req.body.length) } : {}) },
    agent: false,
    signal: req.signal,
  };
  if (secure) {
    // An IP literal gets no SNI (RFC 6066 forbids IPs there); Node then verifies against the IP itself.
    if (isIP(target.hostname) === 0) options.servername = target.hostname;
    if (req.ca !== undefined) options.ca = req.ca;
    options.rejectUnauthorized = true;
  }
  return new Promise<HopResponse>((resolve, reject) => {
    const request = (secure ? nodeHttps() : http).request(options, (res) => {
      if (req.method === 'HEAD' || req.skipBody?.(res.statusCode ?? 0, res.headers)) {
        res.destroy();
        resolve(head(res, Buffer.alloc(0), false));
        return;
      }
      readCapped(res, req.maxBytes, req.signal).then(({ body, truncated }) => resolve(head(res, body, truncated)), reject);
    });
    request.on('error', reject);
    request.end(req.body);
  });
}

function head(res: IncomingMessage, body: Buffer, truncated: boolean): HopResponse {
  return { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body, truncated };
}

/**
 * Reads the body, decoding gzip, deflate and brotli (a server may compress
 * although asked for identity), and stops at `maxBytes` of decoded data so
 * a huge or decompression-bomb body costs no more than the cap.
 */
function readCapped(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<{ body: Buffer; truncated: boolean }> {
  const decoder = decoderFor(res.headers['content-encoding']);
  const stream: Readable = decoder ? res.pipe(decoder) : res;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let settled = false;
    const settle = (err: unknown, truncated = false) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve({ body: Buffer.concat(chunks, kept), truncated });
    };
    const stop = (truncated: boolean) => {
      settle(undefined, truncated);
      res.destroy();
      decoder?.destroy();
    };
    const onAbort = () => {
      settle(signal.reason);
      res.destroy();
      decoder?.destroy();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      const room = maxBytes - kept;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        kept += Math.max(room, 0);
        stop(true);
        return;
      }
      chunks.push(chunk);
      kept += chunk.length;
    });
    stream.on('end', () => settle(undefined));
    stream.on('error', (err) => settle(err));
    res.on('error', (err) => settle(err));
    // The peer closed the connection before the body's end.
    res.on('aborted', () => settle(Object.assign(new Error('the server closed the connection before the body was complete'), { code: 'ECONNRESET' })));
  });
}

function decoderFor(encoding: string | undefined): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}
