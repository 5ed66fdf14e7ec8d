import type { IncomingMessage, ServerResponse } from 'node:http';
import { FixedWindows } from '../policy/fixed-windows.js';
import type { UrlPolicy } from '../policy/urls.js';
import type { Logger } from '../runtime/logger.js';
import { clientAddressKey } from '../transports/client-address.js';
import { findClient, type ClientRecord } from './clients.js';
import { fetchClientMetadataDocument, type MetadataFetchOptions } from './client-metadata.js';
import type { Grants } from './grants.js';
import { sendOAuthError } from './http.js';
import type { Provider } from './providers.js';
import type { Sealer } from './secrets.js';
import type { SigningKeys } from './signing.js';
import type { AuthProxyStore } from './store.js';

/** What every endpoint of the facade shares, resolved once from the options. */
export interface FacadeContext {
  /** toolwright's issuer identifier: the origin of the MCP endpoint. */
  issuer: string;
  /** The MCP endpoint's canonical resource URI: the audience of every token issued. */
  resource: string;
  callbackUrl: string;
  provider: Provider;
  credentials: { clientId: string; clientSecret: string };
  /** What toolwright asks the provider for, whatever the client asked. */
  upstreamScopes: readonly string[];
  scopesSupported: readonly string[];
  scopeMap: Readonly<Record<string, readonly string[]>>;
  accessTokenTtlSeconds: number;
  consentTtlMs: number;
  store: AuthProxyStore;
  grants: Grants;
  signing: SigningKeys;
  sealer: Sealer;
  metadataPolicy?: { policy: UrlPolicy; options: MetadataFetchOptions };
  limits: { register: FixedWindows; token: FixedWindows };
  trustProxy: boolean;
  logger?: Logger;
  /** Secure cookies (and the __Host- prefix) when the issuer is https. */
  secureCookies: boolean;
}

export function lookupClient(ctx: FacadeContext, clientId: string): Promise<ClientRecord | undefined> {
  if (ctx.metadataPolicy && clientId.startsWith('https://'))
    return fetchClientMetadataDocument(ctx.store, clientId, ctx.metadataPolicy.policy, ctx.scopesSupported, ctx.metadataPolicy.options);
  return findClient(ctx.store, clientId);
}

/** Counts a request against a per-address limit; false once it answered 429. */
export function withinLimit(ctx: FacadeContext, limit: FixedWindows, req: IncomingMessage, res: ServerResponse): boolean {
  const waitMs = limit.take(clientAddressKey({ headers: req.headers, remoteAddress: req.socket.remoteAddress }, ctx.trustProxy));
  if (waitMs === undefined) return true;
  sendOAuthError(res, 429, 'slow_down', 'too many requests from this address; retry later', { 'retry-after': String(Math.ceil(waitMs / 1000)) });
  return false;
}

export function newLimits(perMinute: { register?: number; token?: number } = {}): FacadeContext['limits'] {
  return { register: new FixedWindows(perMinute.register ?? 10, 60_000), token: new FixedWindows(perMinute.token ?? 60, 60_000) };
}

/** The cookie naming this browser to the facade (consent and the provider leg are bound to it). */
export function browserCookieName(ctx: FacadeContext): string {
  return ctx.secureCookies ? '__Host-toolwright-browser' : 'toolwright-browser';
}

export function browserCookie(ctx: FacadeContext, value: string): string {
  return `${browserCookieName(ctx)}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${Math.max(3600, Math.floor(ctx.consentTtlMs / 1000))}${ctx.secureCookies ? '; Secure' : ''}`;
}
