import { AuthUnavailableError } from './token-error.js';

/** The parts of an authorization server's metadata (RFC 8414 / OpenID Connect Discovery) the resource server uses. */
interface AuthorizationServerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
  [key: string]: unknown;
}

/**
 * The metadata URLs for an issuer, in the order authorization-server-discovery.mdx
 * gives: RFC 8414 path insertion, OpenID Connect path insertion, then
 * OpenID Connect path appending (the first two only for an issuer without a path).
 */
function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  const origin = url.origin;
  if (!path) return [`${origin}/.well-known/oauth-authorization-server`, `${origin}/.well-known/openid-configuration`];
  return [
    `${origin}/.well-known/oauth-authorization-server${path}`,
    `${origin}/.well-known/openid-configuration${path}`,
    `${origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Fetches the issuer's metadata. A document whose `issuer` is not identical
 * to the configured one is refused (RFC 8414 §3.3): it would let another
 * server name the keys our tokens are checked with.
 */
async function discoverMetadata(issuer: string, timeoutMs = 5_000): Promise<AuthorizationServerMetadata> {
  const problems: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let res: Response;
    try {
      res = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      problems.push(`${url}: ${(err as Error).message}`);
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      problems.push(`${url}: HTTP ${res.status}`);
      continue;
    }
    let doc: unknown;
    try {
      doc = await res.json();
    } catch {
      problems.push(`${url}: not JSON`);
      continue;
    }
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
      problems.push(`${url}: not a JSON object`);
      continue;
    }
    const metadata = doc as AuthorizationServerMetadata;
    if (metadata.issuer !== issuer) {
      // Not "try the next one": a mismatching document is a misconfiguration or an attack, and says so.
      throw new AuthUnavailableError(
        `authorization server metadata at ${url} names issuer ${JSON.stringify(metadata.issuer)}, not ${JSON.stringify(issuer)}; refusing it`,
      );
    }
    return metadata;
  }
  throw new AuthUnavailableError(`no authorization server metadata found for issuer ${issuer} (${problems.join('; ')})`);
}

/**
 * Discovers once, shares the answer, and after a failure tries again only
 * after `retryAfterMs` (a down authorization server must not be hammered once per request).
 */
export class MetadataSource {
  private pending?: Promise<AuthorizationServerMetadata>;
  private failedAt = -Infinity;
  private lastError?: Error;

  constructor(
    private readonly issuer: string,
    private readonly retryAfterMs = 10_000,
  ) {}

  get(): Promise<AuthorizationServerMetadata> {
    if (this.pending) return this.pending;
    if (performance.now() - this.failedAt < this.retryAfterMs && this.lastError) return Promise.reject(this.lastError);
    this.pending = discoverMetadata(this.issuer).catch((err: Error) => {
      this.pending = undefined;
      this.failedAt = performance.now();
      this.lastError = err instanceof AuthUnavailableError ? err : new AuthUnavailableError(err.message, { cause: err });
      throw this.lastError;
    });
    return this.pending;
  }
}
