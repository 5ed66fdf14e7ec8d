import type { FacadeContext } from './context.js';
import { hashOf } from './secrets.js';

/** An authorization request that passed every check, waiting for the user's consent and the provider. */
export interface PendingAuthorization {
  clientId: string;
  clientName?: string;
  redirectUri: string;
  state?: string;
  challenge: string;
  scopes: string[];
  resource: string;
}

/** Where a remembered consent is kept: per browser, client, redirect URI and scope set. */
export function consentKey(browser: string, pending: PendingAuthorization): string {
  return `consent:${hashOf(JSON.stringify([browser, pending.clientId, pending.redirectUri, pending.scopes]))}`;
}

/** The client's redirect URI with response parameters added (and `iss`, RFC 9207 §2). */
export function clientRedirect(ctx: FacadeContext, redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  url.searchParams.set('iss', ctx.issuer);
  return url.href;
}
