import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientRedirect, consentKey, type PendingAuthorization } from './pending.js';
import { startUpstream } from './callback.js';
import { browserCookieName, type FacadeContext } from './context.js';
import { note, noteRefused } from './audit.js';
import { BadBody, cookieOf, escapeHtml, readForm, redirect, sendErrorPage, sendPage } from './http.js';
import { randomToken, sameText } from './secrets.js';

export const CONSENT_PATH = '/oauth/consent';
/** How long the consent page may stay open. */
const PENDING_TTL_MS = 10 * 60_000;

interface PendingConsent {
  pending: PendingAuthorization;
  browser: string;
  csrf: string;
}

/**
 * toolwright's own consent page, shown for every client and scope set a browser has not
 * approved, whatever the provider does later: a provider that skips its consent (the user
 * approved toolwright there before) must not let a new client get a user's token unasked
 * (the confused deputy of CVE-2026-27124). The client's name and redirect are text, escaped.
 */
export async function showConsent(
  ctx: FacadeContext,
  res: ServerResponse,
  pending: PendingAuthorization,
  browser: string,
  headers: Record<string, string>,
): Promise<void> {
  const id = randomToken();
  const csrf = randomToken();
  await ctx.store.put(`pending:${id}`, JSON.stringify({ pending, browser, csrf } satisfies PendingConsent), PENDING_TTL_MS);
  const name = pending.clientName ?? 'An application';
  const scopes = pending.scopes.length ? pending.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('') : '<li>no scopes</li>';
  const body =
    `<p><strong>${escapeHtml(name)}</strong> (client <code>${escapeHtml(pending.clientId)}</code>) asks to use this MCP server as you.</p>` +
    `<p>After you sign in, you will be sent to:<br><code>${escapeHtml(pending.redirectUri)}</code></p>` +
    `<p>It asks for:</p><ul>${scopes}</ul>` +
    `<p>Only allow this if you started it, and you know and trust this address.</p>` +
    `<form method="post" action="${CONSENT_PATH}"><input type="hidden" name="request" value="${id}"><input type="hidden" name="csrf" value="${csrf}">` +
    '<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>';
  sendPage(res, 200, 'Allow access?', body, headers);
}

/**
 * POST /oauth/consent. The pending request is taken (one answer per page); the answer counts
 * only from the browser the page was shown to (its cookie, SameSite=Lax, so a cross-site form
 * post arrives without it) and with the page's CSRF token. A refusal is a page: the redirect
 * URI is the client's, but a forged post must not bounce anyone there either.
 */
export async function handleConsent(ctx: FacadeContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') return sendErrorPage(res, 405, 'Answer the consent page with its buttons.');
  let form: Map<string, string>;
  try {
    form = await readForm(req);
  } catch (err) {
    return sendErrorPage(res, 400, err instanceof BadBody ? err.message : 'The answer is malformed.');
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== new URL(ctx.issuer).origin) return sendErrorPage(res, 403, 'The answer came from another site; it was ignored.');
  const id = form.get('request') ?? '';
  const text = /^[A-Za-z0-9_-]{43}$/.test(id) ? await ctx.store.take(`pending:${id}`) : undefined;
  if (!text) return sendErrorPage(res, 400, 'This sign-in has expired or was already answered.', 'expired');
  const { pending, browser, csrf } = JSON.parse(text) as PendingConsent;
  note(res, {
    clientId: pending.clientId,
    ...(pending.clientName ? { clientName: pending.clientName } : {}),
    scopes: pending.scopes,
    details: { redirect_uri: pending.redirectUri },
  });
  const cookie = cookieOf(req, browserCookieName(ctx)) ?? '';
  if (!sameText(cookie, browser) || !sameText(form.get('csrf') ?? '', csrf)) {
    ctx.logger?.warn({ clientId: pending.clientId }, 'auth-proxy: a consent answer without the browser cookie or CSRF token was refused');
    return sendErrorPage(res, 403, 'The answer did not come from the page this browser was shown; it was ignored.');
  }
  if (form.get('decision') !== 'allow') {
    noteRefused(res, 'access_denied');
    return redirect(
      res,
      clientRedirect(ctx, pending.redirectUri, { error: 'access_denied', error_description: 'the user denied access', state: pending.state }),
    );
  }
  if (ctx.consentTtlMs > 0) await ctx.store.put(consentKey(browser, pending), '1', ctx.consentTtlMs);
  note(res, { outcome: 'ok' }); // consent given (a provider out of reach next makes it a refusal)
  return startUpstream(ctx, res, pending, browser, {});
}
