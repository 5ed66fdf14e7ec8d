/**
 * The facade against a hostile client, page or second server: redirect URI tricks, code
 * replay, PKCE downgrade, a client posing as another, consent posted cross-site, a provider
 * that skips its own consent, and a token of one toolwright server shown to another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browse, CookieJar, field } from './helpers/browser.js';
import { startFacadeServer, type FacadeServer } from './helpers/facade-server.js';
import { APP_REDIRECT, authorizeUrl, pkce, register, signIn, token } from './helpers/flow.js';
import { startOidcUpstream, UPSTREAM_CLIENT, type UpstreamIdp } from './helpers/oidc-upstream.js';

const idps: UpstreamIdp[] = [];
let a: FacadeServer;
let b: FacadeServer;

async function facade(skipConsent = false): Promise<FacadeServer> {
  return startFacadeServer(async (callbackUrl) => {
    const idp = await startOidcUpstream({ callbackUrl, skipConsent });
    idps.push(idp);
    return { provider: 'oidc', issuer: idp.issuer, clientId: UPSTREAM_CLIENT.id, clientSecret: UPSTREAM_CLIENT.secret, rateLimit: { register: 30 } };
  });
}

beforeAll(async () => {
  a = await facade(true); // its provider skips consent once the user signed in
  b = await facade();
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  for (const idp of idps) await idp.close();
});

/** GET /authorize without following: status, Location, body. */
async function authorize(origin: string, params: Record<string, string | undefined>) {
  const res = await fetch(authorizeUrl(origin, params), { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}

describe('redirect URIs', () => {
  it('refuses every near miss with a page, never a redirect; only the loopback port may differ', async () => {
    const client = await register(a.origin);
    const { challenge } = pkce();
    const tricks = [
      `${APP_REDIRECT}/evil`,
      `${APP_REDIRECT}x`,
      `${APP_REDIRECT}?next=https://evil.example`,
      `${APP_REDIRECT}/`,
      'https://app.example.com/%63b',
      'https://APP.example.com/cb',
      'https://app.example.com:8443/cb',
      `${APP_REDIRECT}#frag`,
      'https://app.example.com@evil.example/cb',
      'https://evil.example/cb',
      'http://app.example.com/cb',
      'http://localhost:5000/cb',
      'http://127.0.0.1.evil.example:5000/cb',
      'http://127.0.0.1:5000@evil.example/cb',
      'http://127.0.0.1:5000/cb/../evil',
      'http://127.0.0.1:5000/CB',
      'http://[::1]:5000/cb',
    ];
    for (const redirect of tricks) {
      const answer = await authorize(a.origin, { client_id: client.client_id, redirect_uri: redirect, code_challenge: challenge });
      expect([redirect, answer.status, answer.location]).toEqual([redirect, 400, null]);
      expect(answer.html).toContain('did not register');
    }
    // RFC 8252 §7.3: a native app's loopback redirect on the port it got.
    const loopback = await authorize(a.origin, { client_id: client.client_id, redirect_uri: 'http://127.0.0.1:6001/cb', code_challenge: challenge });
    expect(loopback.status).toBe(200);
    expect(loopback.html).toContain('Allow access?');
  });

  it('an unknown client, or a bad request before the redirect is checked, is a page too', async () => {
    const unknown = await authorize(a.origin, { client_id: 'tw_nobody', redirect_uri: APP_REDIRECT, code_challenge: pkce().challenge });
    expect([unknown.status, unknown.location]).toEqual([400, null]);
    const twice = await fetch(`${a.origin}/authorize?client_id=x&client_id=y&redirect_uri=${encodeURIComponent(APP_REDIRECT)}`, { redirect: 'manual' });
    expect([twice.status, twice.headers.get('location')]).toEqual([400, null]);
  });

  it('registration refuses fragments, user info, http off loopback and script schemes', async () => {
    for (const uri of [
      `${APP_REDIRECT}#x`,
      'https://user@app.example.com/cb',
      'http://app.example.com/cb',
      'javascript:alert(1)',
      'data:text/html,hi',
      '/relative',
    ]) {
      const answer = await register(a.origin, { redirect_uris: [uri] });
      expect([uri, answer.status, answer.body.error]).toEqual([uri, 400, 'invalid_redirect_uri']);
    }
  });
});

describe('codes and PKCE', () => {
  it('a code works once; its replay is refused and ends the grant it made', async () => {
    const client = await register(b.origin);
    const { verifier, challenge } = pkce();
    const { code } = await signIn(b.origin, client.client_id, { challenge });
    const form = { grant_type: 'authorization_code', code: code!, redirect_uri: APP_REDIRECT, code_verifier: verifier, client_id: client.client_id };
    const first = await token(b.origin, form);
    expect(first.status).toBe(200);
    const replay = await token(b.origin, form);
    expect([replay.status, replay.body.error]).toEqual([400, 'invalid_grant']);
    const refresh = await token(b.origin, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: client.client_id });
    expect([refresh.status, refresh.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('PKCE cannot be downgraded: plain or no method is refused at /authorize, a missing or wrong verifier at /token', async () => {
    const client = await register(b.origin);
    const { verifier, challenge } = pkce();
    for (const method of ['plain', undefined]) {
      const answer = await authorize(b.origin, {
        client_id: client.client_id,
        redirect_uri: APP_REDIRECT,
        code_challenge: challenge,
        code_challenge_method: method,
      });
      const back = new URL(answer.location!);
      expect([back.origin + back.pathname, back.searchParams.get('error'), back.searchParams.get('state'), back.searchParams.get('iss')]).toEqual([
        APP_REDIRECT,
        'invalid_request',
        'st-123',
        b.origin,
      ]);
    }
    const noChallenge = await authorize(b.origin, { client_id: client.client_id, redirect_uri: APP_REDIRECT, code_challenge: undefined });
    expect(new URL(noChallenge.location!).searchParams.get('error')).toBe('invalid_request');
    const { code } = await signIn(b.origin, client.client_id, { challenge });
    const base = { grant_type: 'authorization_code', code: code!, redirect_uri: APP_REDIRECT, client_id: client.client_id };
    expect((await token(b.origin, base)).body.error).toBe('invalid_grant');
    // The failed attempt used the code up: the right verifier is too late now.
    expect((await token(b.origin, { ...base, code_verifier: verifier })).body.error).toBe('invalid_grant');
    const second = await signIn(b.origin, client.client_id, { challenge, browser: {} });
    expect((await token(b.origin, { ...base, code: second.code!, code_verifier: pkce().verifier })).body.error).toBe('invalid_grant');
  });

  it('a registered client posing as another gets nothing: not its code, not its redirect, not its secret-protected id', async () => {
    const victim = await register(b.origin, { token_endpoint_auth_method: 'client_secret_basic' });
    expect(victim.client_secret).toBeTruthy();
    const thief = await register(b.origin, { redirect_uris: ['https://thief.example/cb'] });
    const { verifier, challenge } = pkce();
    // The victim's id with the thief's redirect: refused before any redirect.
    const swapped = await authorize(b.origin, { client_id: victim.client_id, redirect_uri: 'https://thief.example/cb', code_challenge: challenge });
    expect([swapped.status, swapped.location]).toEqual([400, null]);
    const { code } = await signIn(b.origin, victim.client_id, { challenge });
    const form = { grant_type: 'authorization_code', code: code!, redirect_uri: APP_REDIRECT, code_verifier: verifier };
    // The thief's own id: the code is not its.
    expect((await token(b.origin, { ...form, client_id: thief.client_id })).body.error).toBe('invalid_grant');
    // The victim's id without its secret: not authenticated.
    const { code: again } = await signIn(b.origin, victim.client_id, { challenge });
    const unauthenticated = await token(b.origin, { ...form, code: again!, client_id: victim.client_id });
    expect([unauthenticated.status, unauthenticated.body.error]).toEqual([401, 'invalid_client']);
    const basic = `Basic ${Buffer.from(`${victim.client_id}:${victim.client_secret}`).toString('base64')}`;
    const { code: third } = await signIn(b.origin, victim.client_id, { challenge });
    expect((await token(b.origin, { ...form, code: third! }, { authorization: basic })).status).toBe(200);
  });
});

describe('consent', () => {
  it('a consent posted cross-site (no cookie, or no CSRF token, or a foreign Origin) is refused with a page and used up', async () => {
    const client = await register(b.origin);
    const jar = new CookieJar();
    const show = async () => {
      const run = await browse(authorizeUrl(b.origin, { client_id: client.client_id, redirect_uri: APP_REDIRECT, code_challenge: pkce().challenge }), {
        stopAt: () => false,
        consent: 'stop',
        jar,
      });
      return { request: field(run.page!.html!, 'request'), csrf: field(run.page!.html!, 'csrf') };
    };
    const post = (fields: Record<string, string>, headers: Record<string, string>) =>
      fetch(`${b.origin}/oauth/consent`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ decision: 'allow', ...fields }),
      });
    const page = await show();
    const cookie = jar.header(new URL(b.origin))!;
    expect(cookie).toMatch(/^toolwright-browser=/);
    const noCookie = await post(page, { origin: 'https://evil.example' });
    expect([noCookie.status, noCookie.headers.get('location')]).toEqual([403, null]);
    const withoutOrigin = await show();
    const noCookieSameOrigin = await post(withoutOrigin, {});
    expect([noCookieSameOrigin.status, noCookieSameOrigin.headers.get('location')]).toEqual([403, null]);
    const forged = await show();
    const wrongCsrf = await post({ request: forged.request, csrf: 'x'.repeat(43) }, { cookie });
    expect([wrongCsrf.status, wrongCsrf.headers.get('location')]).toEqual([403, null]);
    // Used up: the right token after a refused try is no use.
    expect((await post(forged, { cookie })).status).toBe(400);
    const good = await show();
    const allowed = await post(good, { cookie, origin: b.origin });
    expect(allowed.status).toBe(302);
    expect(allowed.headers.get('location')).toMatch(new RegExp(`^${idps[1].issuer}/auth\\?`));
  });

  it("shows the client's name and redirect as text, never markup", async () => {
    const client = await register(b.origin, { client_name: '<script>alert(1)</script><img src=x onerror=alert(2)>' });
    const answer = await authorize(b.origin, { client_id: client.client_id, redirect_uri: APP_REDIRECT, code_challenge: pkce().challenge });
    expect(answer.html).not.toContain('<script>');
    expect(answer.html).not.toContain('<img');
    expect(answer.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
  });

  it("a provider that skips its own consent still leaves toolwright's consent for every new client (the confused deputy)", async () => {
    const jar = new CookieJar();
    const own = await register(a.origin);
    const first = await signIn(a.origin, own.client_id, { challenge: pkce().challenge, browser: { jar } });
    expect(first.code).toBeTruthy();
    // The provider now signs this browser in without asking; a second client is not waved through.
    const attacker = await register(a.origin, { client_name: 'Looks legit', redirect_uris: ['https://attacker.example/cb'] });
    const run = await signIn(a.origin, attacker.client_id, {
      redirect: 'https://attacker.example/cb',
      challenge: pkce().challenge,
      browser: { jar, consent: 'stop' },
    });
    expect(run.sawConsent).toBe(true);
    expect(run.landedOn).toBeUndefined();
    expect(run.page?.html).toContain('https://attacker.example/cb');
  });
});

describe('two toolwright servers', () => {
  it('a token server A issued is refused by server B (another issuer and audience)', async () => {
    const client = await register(a.origin);
    const { verifier, challenge } = pkce();
    const { code } = await signIn(a.origin, client.client_id, { challenge });
    const issued = await token(a.origin, {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: APP_REDIRECT,
      code_verifier: verifier,
      client_id: client.client_id,
    });
    const call = (url: string) =>
      fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${issued.body.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      });
    expect((await call(a.url)).status).toBe(200);
    const refused = await call(b.url);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/invalid_token/);
    // Nor does B's token endpoint know A's refresh token.
    expect((await token(b.origin, { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token, client_id: client.client_id })).status).toBe(401);
  });

  it("a resource other than this server's is refused at /authorize (RFC 8707)", async () => {
    const client = await register(a.origin);
    const answer = await authorize(a.origin, { client_id: client.client_id, redirect_uri: APP_REDIRECT, code_challenge: pkce().challenge, resource: b.url });
    expect(new URL(answer.location!).searchParams.get('error')).toBe('invalid_target');
  });
});

describe('rate limits', () => {
  it('/register answers 429 with Retry-After past its limit per address', async () => {
    let last = 0;
    let retryAfter: string | null = null;
    for (let i = 0; i < 40 && last !== 429; i++) {
      const res = await fetch(`${b.origin}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [APP_REDIRECT] }),
      });
      last = res.status;
      retryAfter = res.headers.get('retry-after');
      await res.text();
    }
    expect(last).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});
