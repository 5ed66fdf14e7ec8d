import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientRecord } from './clients.js';
import { ClientError } from './clients.js';
import { browserCookie, browserCookieName, lookupClient, type FacadeContext } from './context.js';
import type { AuditReason } from '../audit/record.js';
import { note, noteRefused } from './audit.js';
import { BadBody, cookieOf, queryOf, redirect, sendErrorPage, singleValued } from './http.js';
import { redirectUriRegistered } from './redirect-uris.js';
import { randomToken, S256_CHALLENGE } from './secrets.js';
import { clientRedirect, consentKey, type PendingAuthorization } from './pending.js';
import { showConsent } from './consent.js';
import { startUpstream } from './callback.js';

const MAX_STATE_CHARS = 1024;

/**
 * GET /authorize (OAuth 2.1 §4.1.1). Until the client and its redirect URI are known to go
 * together, every refusal is a page here, never a redirect (§4.1.2.1): a redirect to an
 * unchecked URI is an open redirect. After that, refusals go back to the client with `error`,
 * `state` and `iss` (RFC 9207).
 */
export async function handleAuthorize(ctx: FacadeContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET') return sendErrorPage(res, 405, 'Start sign-in with a GET request.');
  let q: Map<string, string>;
  try {
    q = singleValued(queryOf(req));
  } catch (err) {
    return sendErrorPage(res, 400, err instanceof BadBody ? err.message : 'The sign-in request is malformed.');
  }
  const clientId = q.get('client_id') ?? '';
  let client: ClientRecord | undefined;
  try {
    client = clientId ? await lookupClient(ctx, clientId) : undefined;
  } catch (err) {
    if (err instanceof ClientError) return sendErrorPage(res, 400, `The application could not be identified: ${err.message}.`, 'invalid_client');
    throw err;
  }
  if (!client) return sendErrorPage(res, 400, 'The application asking to sign you in is not registered with this server.', 'invalid_client');
  const redirectUri = q.get('redirect_uri');
  note(res, { clientId: client.client_id, ...(client.client_name ? { clientName: client.client_name } : {}), details: { redirect_uri: redirectUri } });
  if (!redirectUri || !redirectUriRegistered(redirectUri, client.redirect_uris))
    return sendErrorPage(res, 400, 'The application gave a redirect address it did not register; nothing was sent to it.', 'invalid_redirect_uri');
  const state = q.get('state');
  const back = (error: AuditReason, description: string) => {
    noteRefused(res, error);
    redirect(res, clientRedirect(ctx, redirectUri, { error, error_description: description, state }));
  };
  if (state !== undefined && state.length > MAX_STATE_CHARS) return back('invalid_request', 'state is too long');
  if (q.get('response_type') !== 'code') return back('unsupported_response_type', 'only response_type=code is supported');
  // OAuth 2.1 §4.1.1 / MCP authorization: PKCE is required, and only S256 (a missing method means "plain").
  if (q.get('code_challenge_method') !== 'S256' || !S256_CHALLENGE.test(q.get('code_challenge') ?? ''))
    return back('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
  const resource = q.get('resource');
  if (resource !== undefined && resource !== ctx.resource) return back('invalid_target', 'tokens are issued here for this MCP server only');
  const scopes = requestedScopes(ctx, client, q.get('scope'));
  if (typeof scopes === 'string') return back('invalid_scope', scopes);
  const pending: PendingAuthorization = {
    clientId: client.client_id,
    ...(client.client_name ? { clientName: client.client_name } : {}),
    redirectUri,
    ...(state !== undefined ? { state } : {}),
    challenge: q.get('code_challenge')!,
    scopes,
    resource: ctx.resource,
  };
  const known = cookieOf(req, browserCookieName(ctx));
  const browser = known && /^[A-Za-z0-9_-]{43}$/.test(known) ? known : randomToken();
  const cookie: Record<string, string> = browser === known ? {} : { 'set-cookie': browserCookie(ctx, browser) };
  if (ctx.consentTtlMs > 0 && (await ctx.store.get(consentKey(browser, pending)))) return startUpstream(ctx, res, pending, browser, cookie);
  return showConsent(ctx, res, pending, browser, cookie);
}

/** The scopes asked for: known ones only; none asked means the client's registered ones, else every supported one. */
function requestedScopes(ctx: FacadeContext, client: ClientRecord, scope: string | undefined): string[] | string {
  const asked = (scope ?? client.scope ?? ctx.scopesSupported.join(' ')).split(' ').filter(Boolean);
  const unknown = asked.filter((s) => !ctx.scopesSupported.includes(s));
  if (unknown.length) return `unsupported scope: ${unknown.join(' ').slice(0, 200)}`;
  return [...new Set(asked)].sort();
}
