import { createHash, randomBytes } from 'node:crypto';
import { browse, type BrowserOptions, type BrowserRun } from './browser.js';

/** A client's side of the authorization code flow, by hand, for tests that bend it. */
export const APP_REDIRECT = 'https://app.example.com/cb';
export const LOOPBACK_REDIRECT = 'http://127.0.0.1:5000/cb';

export async function register(
  origin: string,
  metadata: Record<string, unknown> = {},
): Promise<{ client_id: string; client_secret?: string; status: number; body: any }> {
  const res = await fetch(`${origin}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test app', redirect_uris: [APP_REDIRECT, LOOPBACK_REDIRECT], ...metadata }),
  });
  const body = (await res.json()) as any;
  return { ...body, status: res.status, body };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(origin: string, params: Record<string, string | undefined>): string {
  const url = new URL(`${origin}/authorize`);
  for (const [k, v] of Object.entries({ response_type: 'code', code_challenge_method: 'S256', state: 'st-123', resource: `${origin}/mcp`, ...params }))
    if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

/** Runs the browser from /authorize to the client's redirect. */
export async function signIn(
  origin: string,
  clientId: string,
  options: { redirect?: string; challenge: string; browser?: Partial<BrowserOptions>; extra?: Record<string, string> },
): Promise<BrowserRun & { code?: string }> {
  const redirect = options.redirect ?? APP_REDIRECT;
  const run = await browse(authorizeUrl(origin, { client_id: clientId, redirect_uri: redirect, code_challenge: options.challenge, ...options.extra }), {
    stopAt: (u) => u.origin === new URL(redirect).origin,
    ...options.browser,
  });
  return { ...run, code: run.landedOn?.searchParams.get('code') ?? undefined };
}

export async function token(origin: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: await res.json() };
}

/** A client registered and signed in by hand (code grant with PKCE, the app's redirect): the client and the token answer. */
export async function codeGrant(origin: string): Promise<{ client: Awaited<ReturnType<typeof register>>; issued: { status: number; body: any } }> {
  const client = await register(origin);
  const { verifier, challenge } = pkce();
  const { code } = await signIn(origin, client.client_id, { challenge });
  const issued = await token(origin, {
    grant_type: 'authorization_code',
    code: code!,
    redirect_uri: APP_REDIRECT,
    code_verifier: verifier,
    client_id: client.client_id,
  });
  return { client, issued };
}
