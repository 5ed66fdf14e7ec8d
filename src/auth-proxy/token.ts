import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticateClient, ClientError, type ClientRecord } from './clients.js';
import { lookupClient, withinLimit, type FacadeContext } from './context.js';
import type { Grant } from './grants.js';
import { note, noteRefused } from './audit.js';
import { BadBody, readForm, sendJson, sendOAuthError } from './http.js';
import { pkceMatches } from './secrets.js';
import { refreshUpstream, revokeUpstream, UpstreamError } from './upstream.js';

/** The provider's token is refreshed along with toolwright's when it ends within this. */
const UPSTREAM_REFRESH_MARGIN_MS = 60_000;

/** POST /token (OAuth 2.1 §3.2): authorization_code with PKCE, refresh_token with rotation. */
export async function handleToken(ctx: FacadeContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') return sendOAuthError(res, 405, 'invalid_request', 'use POST', { allow: 'POST' });
  if (!withinLimit(ctx, ctx.limits.token, req, res)) return;
  const client = await clientOf(ctx, req, res);
  if (!client) return;
  const { form } = client;
  const grantType = form.get('grant_type');
  note(res, { clientId: client.client.client_id, ...(grantType === 'refresh_token' ? { method: 'refresh' } : {}), details: { grant_type: grantType } });
  if (grantType === 'authorization_code') return redeemCode(ctx, client.client, form, res);
  if (grantType === 'refresh_token') return redeemRefresh(ctx, client.client, form, res);
  sendOAuthError(res, 400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
}

/** Reads the form and authenticates the client; undefined once a refusal was answered. */
export async function clientOf(
  ctx: FacadeContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ client: ClientRecord; form: Map<string, string> } | undefined> {
  let form: Map<string, string>;
  try {
    form = await readForm(req);
  } catch (err) {
    sendOAuthError(res, 400, 'invalid_request', err instanceof BadBody ? err.message : 'malformed request');
    return undefined;
  }
  try {
    return { client: await authenticateClient(req.headers.authorization, form, (id) => lookupClient(ctx, id)), form };
  } catch (err) {
    if (!(err instanceof ClientError)) throw err;
    const basic = req.headers.authorization?.toLowerCase().startsWith('basic ');
    sendOAuthError(res, 401, 'invalid_client', err.message, basic ? { 'www-authenticate': 'Basic realm="toolwright"' } : {});
    return undefined;
  }
}

async function redeemCode(ctx: FacadeContext, client: ClientRecord, form: Map<string, string>, res: ServerResponse): Promise<void> {
  const code = form.get('code');
  if (!code) return sendOAuthError(res, 400, 'invalid_request', 'code is required');
  const record = await ctx.grants.redeemCode(code);
  if (!('grantId' in record)) {
    // RFC 6749 §4.1.2: a code used twice ends what it was used for.
    if (record.replayOf) {
      noteRefused(res, 'replay');
      await endGrant(ctx, record.replayOf, 'an authorization code was used twice');
    }
    return sendOAuthError(res, 400, 'invalid_grant', 'the authorization code is invalid, expired or already used');
  }
  // The code is bound to the client it was issued to, the redirect URI and the PKCE challenge (OAuth 2.1 §4.1.3).
  if (record.clientId !== client.client_id) return sendOAuthError(res, 400, 'invalid_grant', 'the authorization code was issued to another client');
  if (form.get('redirect_uri') !== record.redirectUri) return sendOAuthError(res, 400, 'invalid_grant', 'redirect_uri differs from the authorization request');
  if (!pkceMatches(form.get('code_verifier'), record.challenge)) return sendOAuthError(res, 400, 'invalid_grant', 'the PKCE code_verifier does not match');
  const resource = form.get('resource');
  if (resource !== undefined && resource !== record.resource)
    return sendOAuthError(res, 400, 'invalid_target', 'tokens are issued here for this MCP server only');
  const grant = await ctx.grants.get(record.grantId);
  if (!grant) return sendOAuthError(res, 400, 'invalid_grant', 'the sign-in was revoked');
  return issueTokens(ctx, grant, grant.scopes, res);
}

async function redeemRefresh(ctx: FacadeContext, client: ClientRecord, form: Map<string, string>, res: ServerResponse): Promise<void> {
  const token = form.get('refresh_token');
  if (!token) return sendOAuthError(res, 400, 'invalid_request', 'refresh_token is required');
  const record = await ctx.grants.redeemRefresh(token);
  if (!('grantId' in record)) {
    // A rotated-out refresh token used again: one of the two users is a thief; end the grant for both.
    if (record.replayOf) {
      noteRefused(res, 'replay');
      await endGrant(ctx, record.replayOf, 'a refresh token was used twice');
    }
    return sendOAuthError(res, 400, 'invalid_grant', 'the refresh token is invalid, expired or already used');
  }
  if (record.clientId !== client.client_id) {
    await endGrant(ctx, record.grantId, 'a refresh token was presented by another client');
    return sendOAuthError(res, 400, 'invalid_grant', 'the refresh token was issued to another client');
  }
  let grant = await ctx.grants.get(record.grantId);
  if (!grant) return sendOAuthError(res, 400, 'invalid_grant', 'the sign-in was revoked');
  const asked = form.get('scope')?.split(' ').filter(Boolean);
  if (asked && !asked.every((s) => grant!.scopes.includes(s))) return sendOAuthError(res, 400, 'invalid_scope', 'a refresh may only narrow the granted scopes');
  try {
    grant = await freshUpstream(ctx, grant);
  } catch (err) {
    if (!(err instanceof UpstreamError)) throw err;
    await endGrant(ctx, grant.id, 'the provider refused to refresh its token');
    return sendOAuthError(res, 400, 'invalid_grant', 'the identity provider ended this sign-in; sign in again');
  }
  return issueTokens(ctx, grant, asked ?? grant.scopes, res);
}

/** The grant with a provider token that is not about to end (refreshed and saved when it was). */
export async function freshUpstream(ctx: FacadeContext, grant: Grant): Promise<Grant> {
  const upstream = ctx.grants.upstreamOf(grant);
  if (upstream.expiresAt === undefined || upstream.expiresAt - Date.now() > UPSTREAM_REFRESH_MARGIN_MS) return grant;
  const next = ctx.grants.withUpstream(grant, await refreshUpstream(await ctx.provider.endpoints(), ctx.credentials, upstream));
  await ctx.grants.save(next);
  return next;
}

async function issueTokens(ctx: FacadeContext, grant: Grant, scopes: readonly string[], res: ServerResponse): Promise<void> {
  const scope = scopes.join(' ');
  const accessToken = await ctx.signing.sign(
    ctx.issuer,
    ctx.resource,
    { sub: grant.subject, client_id: grant.clientId, scope, sid: grant.id },
    ctx.accessTokenTtlSeconds,
  );
  const { token: refreshToken } = await ctx.grants.issueRefresh(grant);
  note(res, { outcome: 'ok', subject: grant.subject, scopes });
  sendJson(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: ctx.accessTokenTtlSeconds, refresh_token: refreshToken, scope });
}

/** Ends a grant and revokes the provider's tokens with it (best effort at the provider); the grant, when it was live. */
export async function endGrant(ctx: FacadeContext, grantId: string, why: string): Promise<Grant | undefined> {
  const grant = await ctx.grants.get(grantId);
  if (!grant) return undefined;
  await ctx.grants.end(grant);
  ctx.logger?.warn({ clientId: grant.clientId, subject: grant.subject, reason: why }, 'auth-proxy: grant ended');
  try {
    await revokeUpstream(ctx.provider, await ctx.provider.endpoints(), ctx.credentials, ctx.grants.upstreamOf(grant));
  } catch (err) {
    ctx.logger?.warn({ reason: (err as Error).message?.slice(0, 200) }, 'auth-proxy: the provider did not take the revocation');
  }
  return grant;
}

/**
 * POST /revoke (RFC 7009): a refresh token or one of toolwright's access tokens, presented by
 * the client it was issued to, ends its grant (and the provider's tokens). Always 200 for a
 * well-formed request, so the answer says nothing about the token.
 */
export async function handleRevoke(ctx: FacadeContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') return sendOAuthError(res, 405, 'invalid_request', 'use POST', { allow: 'POST' });
  if (!withinLimit(ctx, ctx.limits.token, req, res)) return;
  const authed = await clientOf(ctx, req, res);
  if (!authed) return;
  const token = authed.form.get('token');
  if (!token) return sendOAuthError(res, 400, 'invalid_request', 'token is required');
  const refresh = await ctx.grants.peekRefresh(token);
  let grantId: string | undefined;
  if (refresh?.clientId === authed.client.client_id) grantId = refresh.grantId;
  else if (!refresh && token.split('.').length === 3) {
    const claims = await ctx.signing.verify(token, ctx.issuer);
    if (claims?.client_id === authed.client.client_id && typeof claims.sid === 'string') grantId = claims.sid;
  }
  const ended = grantId ? await endGrant(ctx, grantId, 'revoked by the client') : undefined;
  // One record either way (the answer is 200 either way): whether a grant of this client ended.
  note(res, {
    outcome: 'ok',
    clientId: authed.client.client_id,
    ...(ended ? { subject: ended.subject, scopes: ended.scopes } : {}),
    details: { grant_ended: ended !== undefined },
  });
  sendJson(res, 200, {});
}
