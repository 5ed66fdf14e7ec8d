import type { UrlPolicyOptions } from '../../policy/urls.js';
import { optionChecks } from '../options.js';
import type { DialOverride } from './send.js';

const check = optionChecks('http');

export type HttpMethod = 'GET' | 'HEAD' | 'OPTIONS' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Methods that only read (RFC 9110 §9.2.1 "safe"). */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface HttpToolsetOptions extends UrlPolicyOptions {
  /** Methods the model may use (default ['GET', 'HEAD']). Any unsafe method makes the tool destructive: every call then needs approval. */
  methods?: HttpMethod[];
  /** Most response body bytes read, after decompression (default 2 MiB); the rest is cut and the result says so. */
  maxResponseBytes?: number;
  /** Most request body bytes (default 1 MiB). */
  maxRequestBodyBytes?: number;
  /** Time for the whole fetch, redirects included (default 30 s). */
  timeoutMs?: number;
  /** Redirects followed, each re-checked (default 5). */
  maxRedirects?: number;
  /** Request headers the model may send (default 50) and their total size (default 16 KiB). */
  maxHeaders?: number;
  maxHeaderBytes?: number;
  /** Sent unless the model sets one (default `toolwright-fetch/0.1`). */
  userAgent?: string;
  /** Extra trusted CA certificates (PEM), added to Node's built-in list (for an intranet CA). */
  ca?: string | Buffer | Array<string | Buffer>;
  /**
   * TEST SEAM, never set in production: where to connect after the policy
   * approved an address. The tests map a public-looking address to a
   * loopback server so a "public" host can be exercised on a closed network.
   */
  dialOverride?: DialOverride;
}

export interface ResolvedHttpOptions extends HttpToolsetOptions {
  methods: HttpMethod[];
  maxResponseBytes: number;
  maxRequestBodyBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  maxHeaders: number;
  maxHeaderBytes: number;
  userAgent: string;
}

export function resolveHttpOptions(options: HttpToolsetOptions): ResolvedHttpOptions {
  const resolved: ResolvedHttpOptions = {
    ...options,
    methods: options.methods ?? ['GET', 'HEAD'],
    maxResponseBytes: options.maxResponseBytes ?? 2 * 1024 * 1024,
    maxRequestBodyBytes: options.maxRequestBodyBytes ?? 1024 * 1024,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxRedirects: options.maxRedirects ?? 5,
    maxHeaders: options.maxHeaders ?? 50,
    maxHeaderBytes: options.maxHeaderBytes ?? 16 * 1024,
    userAgent: options.userAgent ?? 'toolwright-fetch/0.1',
  };
  if (resolved.methods.length === 0) throw check.invalid('methods', 'must list at least one method');
  for (const key of ['maxResponseBytes', 'maxRequestBodyBytes', 'timeoutMs', 'maxHeaders', 'maxHeaderBytes'] as const) check.positiveInt(key, resolved[key]);
  check.nonNegativeInt('maxRedirects', resolved.maxRedirects);
  if (options.allowedPorts !== undefined) {
    const ports = options.allowedPorts;
    if (!Array.isArray(ports) || ports.length === 0 || !ports.every((p) => Number.isInteger(p) && p >= 1 && p <= 65535)) {
      throw check.invalid('allowedPorts', 'must be a non-empty list of port numbers (1–65535)');
    }
  }
  return resolved;
}
