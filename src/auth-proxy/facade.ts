import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../policy/auth/caller.js';
import type { ResourceServerOptions } from '../policy/auth/options.js';
import { registerUpstreamTokens } from '../policy/auth/upstream-token.js';
import { UrlPolicy } from '../policy/urls.js';
import type { Logger } from '../runtime/logger.js';
import type { AuditSink } from '../audit/record.js';
import { FacadeAudit, type FacadeMethod } from './audit.js';
import { OwnAuditHealth } from './audit-health.js';
import { fetchFace } from './fetch-face.js';
import { handleAuthorize } from './authorize.js';
import { handleCallback } from './callback.js';
import { CONSENT_PATH, handleConsent } from './consent.js';
import { newLimits, type FacadeContext } from './context.js';
import { Grants } from './grants.js';
import { escapeHtml, sendJson, sendPage } from './http.js';
import { authorizationServerMetadata } from './metadata.js';
import { CALLBACK_PATH, type AuthProxyOptions } from './options.js';
import { providerOf } from './providers.js';
import { handleRegister } from './register.js';
import { Sealer } from './secrets.js';
import { SigningKeys } from './signing.js';
import { MemoryAuthProxyStore, type AuthProxyStore } from './store.js';
import { freshUpstream, handleRevoke, handleToken } from './token.js';
import { UpstreamError } from './upstream.js';

export type AuthProxyRoute = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The facade, ready to mount beside an MCP endpoint. */
export interface AuthProxy {
  /** toolwright's issuer identifier (the MCP endpoint's origin). */
  readonly issuer: string;
  /** The redirect URI to register at the provider. */
  readonly callbackUrl: string;
  /** The facade's routes by exact path: give them to `serveHttp({ routes })` or your own router. */
  readonly routes: Readonly<Record<string, AuthProxyRoute>>;
  /**
   * The same routes on the web-standard face: a Web Request for one of them is answered with a
   * Web Response; any other path resolves to undefined (give it to the MCP handler's `fetch`).
   * `info.remoteAddress` is the client's address (the /register and /token limits count by it).
   */
  fetch(request: Request, info?: { remoteAddress?: string }): Promise<Response | undefined>;
  /** The resource-server options that accept toolwright's tokens (merged over `base`: its scope keys stay). */
  resourceServer(base?: ResourceServerOptions): ResourceServerOptions;
  /**
   * Makes a new signing key the one that signs; the previous stays in the JWKS (and is accepted)
   * as long as a token it signed can live. Every instance sharing the store follows at once.
   * Returns the new key's `kid`.
   */
  rotateSigningKey(): Promise<string>;
  /** The provider's current access token for the caller of a request (refreshed when about to end). */
  upstreamToken(caller: Caller): Promise<string>;
  close(): Promise<void>;
}

/**
 * Builds the authorization-server facade for the MCP endpoint at `resource` (its canonical
 * URI; the issuer is its origin, so metadata, /authorize, /token, /register, /revoke and
 * /oauth/callback are served there). Nothing is fetched until the first sign-in.
 */
export function createAuthProxy(options: AuthProxyOptions, resource: string, logger?: Logger): AuthProxy {
  const ctx = contextOf(options, resource, logger);
  const { issuer, store } = ctx;
  const scopesSupported = ctx.scopesSupported;
  const metadata = authorizationServerMetadata(ctx);
  const audit = options.audit ? facadeAudit(options, options.audit, logger, ctx.trustProxy) : undefined;
  type Handler = (c: FacadeContext, req: IncomingMessage, res: ServerResponse) => Promise<void> | void;
  /**
   * The handler, leaving one audit record when it noted an outcome (registered, consented,
   * issued, revoked, refused). While the trail cannot be written under onFailure 'refuse', the
   * steps that lead to a token are refused without running; /revoke still runs (refusing it would
   * keep a leaked token alive; its lost record is counted).
   */
  const audited =
    (method: FacadeMethod, path: string, handler: Handler): AuthProxyRoute =>
    async (req, res) => {
      if (!audit) return handler(ctx, req, res);
      if (method !== 'revoke' && !audit.admits()) return refuseUnaudited(path, res);
      return audit.around(method, path, req, res, async () => handler(ctx, req, res));
    };
  const open = (route: AuthProxyRoute): AuthProxyRoute => crossOrigin(route);
  const routes: Record<string, AuthProxyRoute> = {
    '/.well-known/oauth-authorization-server': open(async (req, res) => sendPublic(req, res, metadata)),
    '/oauth/jwks': open(async (req, res) => sendPublic(req, res, await ctx.signing.jwks())),
    '/register': open(audited('register', '/register', handleRegister)),
    '/token': open(audited('token', '/token', handleToken)),
    '/revoke': open(audited('revoke', '/revoke', handleRevoke)),
    // Browser pages: no cross-origin access.
    '/authorize': audited('authorize', '/authorize', handleAuthorize),
    [CONSENT_PATH]: audited('consent', CONSENT_PATH, handleConsent),
    [CALLBACK_PATH]: audited('callback', CALLBACK_PATH, handleCallback),
  };
  const upstreamToken = async (caller: Caller): Promise<string> => {
    const sid = caller.claims.sid;
    const grant = typeof sid === 'string' && caller.claims.iss === issuer ? await ctx.grants.get(sid) : undefined;
    if (!grant || grant.subject !== caller.subject)
      throw new UpstreamError("this caller did not sign in through this server's identity provider, or the sign-in was revoked");
    return ctx.grants.upstreamOf(await freshUpstream(ctx, grant)).accessToken;
  };
  const unregister = registerUpstreamTokens(issuer, upstreamToken);
  // Every request with one of our tokens: is its grant still live? (Revoked, or ended by a replay: no.)
  const grantLive = (caller: Caller): boolean | Promise<boolean> => {
    const sid = caller.claims.sid;
    return typeof sid === 'string' && ctx.grants.isLive(sid);
  };
  return {
    issuer,
    callbackUrl: ctx.callbackUrl,
    routes,
    fetch: fetchFace(routes),
    resourceServer: (given = {}) => ({
      ...given,
      issuer,
      resource,
      jwks: () => ctx.signing.jwks(),
      algorithms: ['ES256'],
      scopesSupported: given.scopesSupported ?? [...scopesSupported],
      // Other callers (API keys in `given`) keep the check they had, if any.
      tokenActive: (caller) => (caller.claims.iss === issuer ? grantLive(caller) : (given.tokenActive?.(caller) ?? true)),
    }),
    rotateSigningKey: () => ctx.signing.rotate(),
    upstreamToken,
    close: async () => {
      unregister();
      await store.close?.();
    },
  };
}

/** What every endpoint shares, from the options; a bad option is a TypeError naming it. */
function contextOf(options: AuthProxyOptions, resource: string, logger: Logger | undefined): FacadeContext {
  const url = new URL(resource);
  if (url.protocol !== 'https:' && !['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname))
    throw new TypeError('auth.proxy needs an https resource URI (http only on loopback addresses, for development)');
  if (!options.clientId || !options.clientSecret) throw new TypeError("auth.proxy needs clientId and clientSecret (toolwright's client at the provider)");
  const issuer = url.origin;
  const store: AuthProxyStore = options.store ?? new MemoryAuthProxyStore();
  const sealer = new Sealer(options.encryptionKey);
  const provider = providerOf(options);
  const scopesSupported = options.scopesSupported ?? [];
  const accessTokenTtlSeconds = positive(options.accessTokenTtlSeconds, 900, 'accessTokenTtlSeconds');
  const keyMaxAgeDays = options.signingKeyMaxAgeDays;
  if (keyMaxAgeDays !== undefined && !(Number.isFinite(keyMaxAgeDays) && keyMaxAgeDays > 0))
    throw new TypeError('auth.proxy.signingKeyMaxAgeDays must be a positive number of days');
  return {
    issuer,
    resource,
    callbackUrl: `${issuer}${CALLBACK_PATH}`,
    provider,
    credentials: { clientId: options.clientId, clientSecret: options.clientSecret },
    upstreamScopes: options.scopes ?? provider.defaultScopes,
    scopesSupported,
    scopeMap: options.scopeMap ?? {},
    accessTokenTtlSeconds,
    consentTtlMs: (options.consentTtlSeconds ?? 30 * 24 * 3600) * 1000,
    store,
    grants: new Grants(store, sealer, positive(options.refreshTokenTtlSeconds, 30 * 24 * 3600, 'refreshTokenTtlSeconds') * 1000),
    // A retired key stays published for a token's lifetime plus the most clock skew a resource server may allow (300 s).
    signing: new SigningKeys(store, sealer, {
      graceMs: (accessTokenTtlSeconds + 300) * 1000,
      ...(keyMaxAgeDays === undefined ? {} : { maxAgeMs: keyMaxAgeDays * 24 * 3600_000 }),
    }),
    sealer,
    ...(options.clientMetadataDocuments === false
      ? {}
      : { metadataPolicy: { policy: new UrlPolicy(options.clientMetadataDocuments ?? {}), options: { ca: options.clientMetadataDocuments?.ca } } }),
    limits: newLimits(options.rateLimit),
    trustProxy: options.trustProxy === true,
    ...(logger ? { logger } : {}),
    secureCookies: url.protocol === 'https:',
  };
}

function positive(value: number | undefined, fallback: number, key: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`auth.proxy.${key} must be a positive whole number of seconds`);
  return value;
}

/** The facade's audit, following the server's audit failure policy (its guard when given, else one of the facade's own). */
function facadeAudit(options: AuthProxyOptions, sink: AuditSink, logger: Logger | undefined, trustProxy: boolean): FacadeAudit {
  const policy = options.auditFailure ?? 'refuse';
  if (policy !== 'refuse' && policy !== 'warn') throw new TypeError("auth.proxy.auditFailure must be 'refuse' or 'warn'");
  const health = options.auditGuard ?? new OwnAuditHealth(sink, policy, logger);
  return new FacadeAudit(sink, options.auditInstance, logger, trustProxy, health);
}

const UNAUDITED = "sign-in is unavailable while the server's audit trail cannot be written; try again shortly";

/**
 * A request refused because it could not be audited: the token and registration endpoints
 * answer `temporarily_unavailable` with 503 and Retry-After (the code RFC 6749 §4.1.2.1 names
 * for an authorization server that cannot serve for now); the browser pages, a page (never a
 * redirect: the client and its redirect URI are not checked yet).
 */
function refuseUnaudited(path: string, res: ServerResponse): void {
  if (path === '/token' || path === '/register') sendJson(res, 503, { error: 'temporarily_unavailable', error_description: UNAUDITED }, { 'retry-after': '1' });
  else
    sendPage(res, 503, 'Sign-in unavailable', `<p>${escapeHtml(UNAUDITED)}.</p><p>Start again from your application in a moment.</p>`, { 'retry-after': '1' });
}

/** Public documents: readable across origins, cached briefly. */
function sendPublic(req: IncomingMessage, res: ServerResponse, body: unknown): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') sendJson(res, 405, { error: 'invalid_request' }, { allow: 'GET, HEAD' });
  else sendJson(res, 200, body, { 'cache-control': 'public, max-age=300' });
}

/** Endpoints a browser-based client calls across origins (no cookies are used there): CORS with `*`. */
function crossOrigin(route: AuthProxyRoute): AuthProxyRoute {
  return async (req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }
    await route(req, res);
  };
}
