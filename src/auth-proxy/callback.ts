import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientRedirect, type PendingAuthorization } from './pending.js';
import { browserCookieName, type FacadeContext } from './context.js';
import type { AuditReason } from '../audit/record.js';
import { note, noteRefused } from './audit.js';
import { BadBody, cookieOf, queryOf, redirect, sendErrorPage, singleValued } from './http.js';
import { newPkce, randomToken, sameText } from './secrets.js';
import { authorizationUrl, exchangeCode, identify, UpstreamError, type UpstreamTokens } from './upstream.js';

/** How long the user may take at the provider. */
const UPSTREAM_TTL_MS = 10 * 60_000;

interface UpstreamLeg {
  pending: PendingAuthorization;
  browser: string;
  verifier: string;
  nonce: string;
  asked: string[];
}

/** Sends the browser to the provider, with this leg's own state, PKCE challenge and nonce. */
export async function startUpstream(
  ctx: FacadeContext,
  res: ServerResponse,
  pending: PendingAuthorization,
  browser: string,
  headers: Record<string, string>,
): Promise<void> {
  let endpoints: Awaited<ReturnType<FacadeContext['provider']['endpoints']>>;
  try {
    endpoints = await ctx.provider.endpoints();
  } catch (err) {
    ctx.logger?.error({ err }, "auth-proxy: the identity provider's metadata could not be read");
    noteRefused(res, 'provider_unavailable');
    return redirect(
      res,
      clientRedirect(ctx, pending.redirectUri, {
        error: 'temporarily_unavailable',
        error_description: 'the identity provider cannot be reached',
        state: pending.state,
      }),
    );
  }
  const state = randomToken();
  const { verifier, challenge } = newPkce();
  const nonce = randomToken();
  const asked = upstreamScopesFor(ctx, pending.scopes);
  await ctx.store.put(`upstream:${state}`, JSON.stringify({ pending, browser, verifier, nonce, asked } satisfies UpstreamLeg), UPSTREAM_TTL_MS);
  const url = authorizationUrl(ctx.provider, endpoints, {
    clientId: ctx.credentials.clientId,
    redirectUri: ctx.callbackUrl,
    scopes: asked,
    state,
    challenge,
    nonce,
  });
  redirect(res, url, headers);
}

/** What toolwright asks the provider for: its own scopes, and those the scope map ties to the toolwright scopes asked. */
function upstreamScopesFor(ctx: FacadeContext, scopes: readonly string[]): string[] {
  return [...new Set([...ctx.upstreamScopes, ...scopes.flatMap((s) => ctx.scopeMap[s] ?? [])])];
}

/** The toolwright scopes granted: each asked one whose mapped provider scopes the provider granted. */
function grantedScopes(ctx: FacadeContext, asked: readonly string[], upstream: UpstreamTokens): string[] {
  return asked.filter((s) => (ctx.scopeMap[s] ?? []).every((needed) => upstream.scopes.includes(needed)));
}

/**
 * GET /oauth/callback: the provider's answer. The leg is found by its state (once), must come
 * back to the browser that started it (a code pasted into another browser is refused), and, when
 * the provider says it sends `iss` (RFC 9207), from that issuer (mix-up defence). Then the code is
 * traded, the user identified, a grant made, and toolwright's own code sent to the client.
 */
export async function handleCallback(ctx: FacadeContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET') return sendErrorPage(res, 405, 'The identity provider returns here with a GET request.');
  let q: Map<string, string>;
  try {
    q = singleValued(queryOf(req));
  } catch (err) {
    return sendErrorPage(res, 400, err instanceof BadBody ? err.message : "The provider's answer is malformed.");
  }
  const state = q.get('state') ?? '';
  const text = /^[A-Za-z0-9_-]{43}$/.test(state) ? await ctx.store.take(`upstream:${state}`) : undefined;
  if (!text) return sendErrorPage(res, 400, 'This sign-in has expired or was already completed.', 'expired');
  const leg = JSON.parse(text) as UpstreamLeg;
  const { pending } = leg;
  note(res, { clientId: pending.clientId, ...(pending.clientName ? { clientName: pending.clientName } : {}), scopes: pending.scopes });
  if (!sameText(cookieOf(req, browserCookieName(ctx)) ?? '', leg.browser))
    return sendErrorPage(res, 403, 'This sign-in was started in another browser; start it again here.');
  const back = (error: AuditReason, description: string) => {
    noteRefused(res, error);
    redirect(res, clientRedirect(ctx, pending.redirectUri, { error, error_description: description, state: pending.state }));
  };
  const endpoints = await ctx.provider.endpoints();
  const iss = q.get('iss');
  if ((endpoints.issParameter || iss !== undefined) && iss !== endpoints.issuer)
    return back('access_denied', 'the answer did not come from the configured identity provider');
  if (q.has('error')) return back('access_denied', 'the identity provider did not sign you in');
  const code = q.get('code');
  if (!code) return back('access_denied', 'the identity provider sent no code');
  try {
    const { tokens, idToken } = await exchangeCode(endpoints, ctx.credentials, code, ctx.callbackUrl, leg.verifier, leg.asked);
    const who = await identify(ctx.provider, endpoints, ctx.credentials.clientId, tokens, idToken, leg.nonce);
    const scopes = grantedScopes(ctx, pending.scopes, tokens);
    const grant = await ctx.grants.create({ clientId: pending.clientId, subject: who.subject, ...(who.name ? { name: who.name } : {}), scopes }, tokens);
    const ours = await ctx.grants.issueCode({
      grantId: grant.id,
      clientId: pending.clientId,
      redirectUri: pending.redirectUri,
      challenge: pending.challenge,
      resource: pending.resource,
      scopes,
    });
    ctx.logger?.info({ clientId: pending.clientId, subject: who.subject, scopes }, 'auth-proxy: signed in');
    note(res, { method: 'sign-in', outcome: 'ok', subject: who.subject, scopes });
    return redirect(res, clientRedirect(ctx, pending.redirectUri, { code: ours, state: pending.state }));
  } catch (err) {
    if (!(err instanceof UpstreamError)) throw err;
    ctx.logger?.warn({ clientId: pending.clientId, reason: err.message }, 'auth-proxy: sign-in at the provider failed');
    return back('access_denied', err.message);
  }
}
