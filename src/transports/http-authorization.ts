import type { AuthenticateRequest, EndpointRequest } from './http-request.js';
import { encodeError } from '../jsonrpc/encode.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { bearerChallenge } from '../policy/auth/challenge.js';
import type { ResourceServerOptions } from '../policy/auth/options.js';
import { toAuthInfo, type AuthenticateResult, type AuthInfo } from '../policy/auth/principal.js';
import { metadataPaths, metadataUrl, protectedResourceMetadata } from '../policy/auth/resource-metadata.js';
import { AuthUnavailableError, InvalidTokenError } from '../policy/auth/token-error.js';
import { tokenDigest, TokenVerifier } from '../policy/auth/token-verifier.js';
import type { Logger } from '../runtime/logger.js';
import { utf8Length, type HttpResponse } from './http-response.js';
import { recordedText } from '../jsonrpc/recorded.js';
import { checkAuthorizationOptions } from './http-handler-options.js';

/**
 * A custom hook: a principal id, a richer AuthInfo, or undefined for "answer 401". It is given
 * Node's IncomingMessage on the Node face, and `{ method, url, headers, request }` on the fetch
 * face (http-request.ts); read `req.headers` (lower-cased) to serve both. Declared as a method
 * so that a hook written for `(req: IncomingMessage)` still type-checks.
 */
export type AuthenticateHook = {
  authenticate(req: AuthenticateRequest): AuthenticateResult | Promise<AuthenticateResult>;
}['authenticate'];

/**
 * The last Authorization header a connection sent and its token's digest. A keep-alive
 * connection is one client sending one token over and over: comparing the header text
 * (a memcmp) replaces a SHA-256 of ~650 bytes on every request (~2.5 µs, a third of what
 * authorization adds to a cached-token call). Only the digest is derived from it; the
 * verification cache is still asked every time, so expiry and eviction hold as before.
 * The header lives as long as the connection, no longer than the client keeps it.
 */
const LAST_TOKEN = Symbol('toolwright.lastBearer');
type MemoSocket = { [LAST_TOKEN]?: { header: string; digest: string } };

/** Longest bearer token looked at; a longer one is refused unread. */
const MAX_TOKEN_CHARS = 16 * 1024;
/** RFC 6750 §2.1 b64token. */
const B64_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The HTTP side of authorization: serves the Protected Resource Metadata
 * (RFC 9728), turns the Authorization header into a verified caller, and
 * answers refusals with the status and `WWW-Authenticate` challenge the
 * specification gives (authorization/index "Error Handling"): 400 for a
 * malformed request (a token in the query string), 401 with
 * `resource_metadata` (and `error="invalid_token"` for a bad token), 403
 * `insufficient_scope` with every scope the call needs.
 */
export class HttpAuthorization {
  private readonly metadataJson?: string;
  private readonly metadataPaths: ReadonlySet<string>;
  private readonly resourceMetadata?: string;
  private readonly verifier?: TokenVerifier;
  private readonly scopesSupported?: readonly string[];
  private readonly tokenActive?: ResourceServerOptions['tokenActive'];

  constructor(
    private readonly logger: Logger,
    private readonly hook: AuthenticateHook | undefined,
    options: ResourceServerOptions | undefined,
    /** Undefined only where nothing names it: API keys alone have no audience and no metadata. */
    resource: string | undefined,
    servedPath: string,
  ) {
    if (options) {
      this.verifier = new TokenVerifier({ ...options, resource: resource ?? '' });
      this.scopesSupported = options.scopesSupported;
      this.tokenActive = options.tokenActive;
      // Metadata names authorization servers: there is none to name for API keys alone.
      if (options.issuer || options.authorizationServers?.length) {
        this.metadataJson = JSON.stringify(protectedResourceMetadata(options, resource!));
        this.resourceMetadata = metadataUrl(resource!);
      }
    }
    this.metadataPaths = new Set(this.metadataJson ? metadataPaths(resource!, servedPath) : []);
  }

  /** Answers a request for the resource metadata; false when `path` is not one of its URLs. */
  serveMetadata(path: string, req: EndpointRequest, res: HttpResponse): boolean {
    if (!this.metadataPaths.has(path)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return true;
    }
    // Public by nature: browser-based clients read it across origins.
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(this.metadataJson!),
      'cache-control': 'public, max-age=300',
      'access-control-allow-origin': '*',
    });
    res.end(req.method === 'HEAD' ? undefined : this.metadataJson);
    return true;
  }

  /**
   * The verified caller, or undefined once the refusal has been answered.
   * A token verified before and still in the cache (never past its expiry)
   * is answered synchronously: no promise, no await hop for every request.
   */
  authenticate(req: EndpointRequest, res: HttpResponse): AuthInfo | undefined | Promise<AuthInfo | undefined> {
    // authorization/index "Token Requirements": tokens MUST NOT be in the query string.
    if (hasQueryToken(req.url)) {
      return this.refuse(res, 400, 'Bad Request: access tokens are not accepted in the query string; send Authorization: Bearer <token>', {
        error: 'invalid_request',
        description: 'access tokens in the query string are refused',
      });
    }
    if (this.hook) return this.authenticateWithHook(req, res);
    const header = req.headers.authorization;
    // Fast path: a token verified before. Only a token that passed every check
    // below (format, length, signature, claims) is ever cached, so a hit on the
    // token's exact text needs none of them again; the cache re-checks expiry.
    // The connection's memo where the runtime shows connections (Node); the fetch face has none.
    const socket = req.connection as MemoSocket | undefined;
    const last = socket?.[LAST_TOKEN];
    if (last !== undefined && last.header === header) {
      const hit = this.verifier!.cached(last.digest);
      if (hit) return this.admit(hit, res);
    }
    const candidate = typeof header === 'string' ? bearerCandidate(header) : undefined;
    let digest: string | undefined;
    if (candidate !== undefined && candidate.length <= MAX_TOKEN_CHARS) {
      digest = tokenDigest(candidate);
      const hit = this.verifier!.cached(digest);
      if (hit) {
        if (socket) socket[LAST_TOKEN] = { header: header as string, digest };
        return this.admit(hit, res);
      }
    }
    return this.authenticateBearer(header, res, candidate, digest);
  }

  private async authenticateWithHook(req: EndpointRequest, res: HttpResponse): Promise<AuthInfo | undefined> {
    const auth = toAuthInfo(await this.hook!(req.hookRequest));
    if (!auth) return this.refuse(res, 401, 'Unauthorized: valid credentials are required', {});
    return auth;
  }

  private async authenticateBearer(
    header: string | string[] | undefined,
    res: HttpResponse,
    candidate: string | undefined,
    digest: string | undefined,
  ): Promise<AuthInfo | undefined> {
    const match = typeof header === 'string' ? /^Bearer +(\S+) *$/i.exec(header) : null;
    if (!match) {
      if (typeof header === 'string' && /^Bearer\b/i.test(header)) {
        return this.refuse(res, 400, 'Bad Request: malformed Authorization header; send Authorization: Bearer <token>', {
          error: 'invalid_request',
          description: 'malformed Authorization header',
        });
      }
      return this.refuse(res, 401, 'Unauthorized: send Authorization: Bearer <access token>', { scopes: this.scopesSupported });
    }
    const token = match[1];
    if (token.length > MAX_TOKEN_CHARS || !B64_TOKEN.test(token)) {
      return this.refuse(res, 401, 'Unauthorized: invalid access token', { error: 'invalid_token', description: 'the access token is malformed' });
    }
    let info: AuthInfo;
    try {
      // The digest is the candidate's: reuse it only when the full parse found that same token.
      info = await this.verifier!.verify(token, token === candidate ? digest : undefined);
    } catch (err) {
      if (err instanceof InvalidTokenError) {
        return this.refuse(res, 401, `Unauthorized: ${err.description}`, { error: 'invalid_token', description: err.description });
      }
      return this.unavailable(err, res);
    }
    return this.admit(info, res);
  }

  /**
   * A verified caller whose token is still active (`tokenActive`: the facade's grant was not
   * ended), asked on every request, cached verification or not; synchronous when the check is.
   */
  private admit(info: AuthInfo, res: HttpResponse): AuthInfo | undefined | Promise<AuthInfo | undefined> {
    const check = this.tokenActive;
    if (!check) return info;
    let active: boolean | Promise<boolean>;
    try {
      active = check(info);
    } catch (err) {
      return this.unavailable(err, res);
    }
    if (active === true) return info;
    if (active === false) return this.revoked(res);
    return active.then(
      (ok) => (ok === true ? info : this.revoked(res)),
      (err: unknown) => this.unavailable(err, res),
    );
  }

  private revoked(res: HttpResponse): undefined {
    const description = 'the access token was revoked';
    return this.refuse(res, 401, `Unauthorized: ${description}`, { error: 'invalid_token', description });
  }

  /** 503: the token could not be checked (its keys or the grant store are out of reach); the cause goes to the log only. */
  private unavailable(err: unknown, res: HttpResponse): undefined {
    const cause = err instanceof AuthUnavailableError ? (err.cause ?? err) : err;
    this.logger.warn({ err: cause, reason: recordedText((err as Error)?.message ?? String(err), 1024) }, 'could not verify an access token');
    res.setHeader('retry-after', '5');
    return this.refuse(res, 503, 'Service Unavailable: the access token cannot be verified right now; retry later', undefined);
  }

  /** The 403 challenge for a call that needs scopes the token lacks. */
  insufficientScope(scopes: readonly string[]): string {
    return bearerChallenge({
      error: 'insufficient_scope',
      description: 'the access token lacks scopes this call needs',
      scopes,
      resourceMetadata: this.resourceMetadata,
    });
  }

  private refuse(
    res: HttpResponse,
    status: number,
    message: string,
    challenge: { error?: 'invalid_request' | 'invalid_token'; description?: string; scopes?: readonly string[] } | undefined,
  ): undefined {
    if (challenge) res.setHeader('www-authenticate', bearerChallenge({ ...challenge, resourceMetadata: this.resourceMetadata }));
    const json = encodeError(undefined, new RpcError(ErrorCode.InvalidRequest, message, undefined, status));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': utf8Length(json) }).end(json);
    return undefined;
  }
}

/**
 * The token of `Bearer <spaces> <token> <spaces>` (scheme case-insensitive),
 * without validating it: a cache lookup key only. Undefined when the header
 * is no Bearer header at all.
 */
function bearerCandidate(header: string): string | undefined {
  if (header.length < 8 || header.charCodeAt(6) !== 32 || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  let start = 7;
  while (header.charCodeAt(start) === 32) start++;
  let end = header.length;
  while (end > start && header.charCodeAt(end - 1) === 32) end--;
  return end > start ? header.slice(start, end) : undefined;
}

function hasQueryToken(url: string | undefined): boolean {
  const q = url?.indexOf('?') ?? -1;
  if (q === -1) return false;
  const params = new URLSearchParams(url!.slice(q + 1));
  return params.has('access_token');
}

/**
 * Builds the authorization of an HTTP endpoint from its options: a custom
 * `authenticate` hook, or `auth` (OAuth tokens and/or API keys), never both.
 * `resource` is the endpoint's canonical URI (RFC 8707: what tokens name and
 * the metadata describes); OAuth cannot work without one.
 */
export function createHttpAuthorization(
  options: { authenticate?: AuthenticateHook; auth?: ResourceServerOptions },
  resource: string | undefined,
  servedPath: string,
  logger: Logger,
): HttpAuthorization | undefined {
  if (!options.authenticate && !options.auth) return undefined;
  const canonical = checkAuthorizationOptions(options, resource);
  const auth = options.auth;
  return new HttpAuthorization(logger, options.authenticate, auth, canonical, servedPath);
}
