/**
 * The facade's events in the server's audit trail: one record per registration, consent, sign-in,
 * token issued, refresh, revocation and refused request (with its reason), and nothing secret in
 * any of them (no client secret, code, token, state, verifier, cookie or the provider's secret).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/record.js';
import { MemoryAuditSink } from '../../src/audit/memory-sink.js';
import { startOidcFacade, type OidcFacade } from './helpers/facade-server.js';
import { APP_REDIRECT, authorizeUrl, pkce, register, signIn, token } from './helpers/flow.js';
import { UPSTREAM_CLIENT } from './helpers/oidc-upstream.js';

let server: OidcFacade;
const sink = new MemoryAuditSink();

beforeAll(async () => {
  server = await startOidcFacade({ audit: sink, auditInstance: 'facade-1' });
});
afterAll(async () => {
  await server?.close();
});

/** The records written since `from`, as method, status, reason. */
const since = (from: number) => sink.records.slice(from).map((r) => [r.method, r.status, r.reason ?? null]);

describe('facade events in the audit trail', () => {
  it('one record per event from registration to revocation, with who and which client; none holds a secret', async () => {
    const secrets: string[] = [UPSTREAM_CLIENT.secret];
    let from = sink.records.length;
    const client = await register(server.origin, { client_name: 'Audited app', token_endpoint_auth_method: 'client_secret_post' });
    secrets.push(client.client_secret!);
    expect(since(from)).toEqual([['oauth/register', 'ok', null]]);
    expect(sink.records.at(-1)).toMatchObject({
      principal: null,
      clientId: client.client_id,
      clientName: 'Audited app',
      tool: '/register',
      status: 'ok',
      isError: false,
      instance: 'facade-1',
      protocolVersion: 'oauth',
    });

    from = sink.records.length;
    const { verifier, challenge } = pkce();
    secrets.push(verifier, challenge);
    const run = await signIn(server.origin, client.client_id, { challenge });
    secrets.push(run.code!);
    for (const jar of run.jar.cookies.values()) for (const value of jar.values()) secrets.push(value);
    // GET /authorize and the consent page leave none; the consent answer and the provider's return do.
    expect(since(from)).toEqual([
      ['oauth/consent', 'ok', null],
      ['oauth/sign-in', 'ok', null],
    ]);
    expect(sink.records.at(-1)).toMatchObject({ principal: 'carol', clientId: client.client_id, tool: '/oauth/callback' });

    from = sink.records.length;
    const auth = { client_id: client.client_id, client_secret: client.client_secret! };
    const issued = await token(server.origin, {
      grant_type: 'authorization_code',
      code: run.code!,
      redirect_uri: APP_REDIRECT,
      code_verifier: verifier,
      ...auth,
    });
    const refreshed = await token(server.origin, { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token, ...auth });
    const replayed = await token(server.origin, { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token, ...auth });
    expect(replayed.status).toBe(400);
    secrets.push(issued.body.access_token, issued.body.refresh_token, refreshed.body.access_token, refreshed.body.refresh_token);
    expect(since(from)).toEqual([
      ['oauth/token', 'ok', null],
      ['oauth/refresh', 'ok', null],
      ['oauth/refresh', 'refused', 'replay'],
    ]);
    expect(sink.records.slice(from, from + 2).map((r) => [r.principal, r.clientId, JSON.parse(r.argumentsJson)])).toEqual([
      ['carol', client.client_id, { grant_type: 'authorization_code' }],
      ['carol', client.client_id, { grant_type: 'refresh_token' }],
    ]);

    // A second grant, revoked by its client.
    from = sink.records.length;
    const second = pkce();
    const again = await signIn(server.origin, client.client_id, { challenge: second.challenge, browser: { jar: run.jar } });
    const tokens = await token(server.origin, {
      grant_type: 'authorization_code',
      code: again.code!,
      redirect_uri: APP_REDIRECT,
      code_verifier: second.verifier,
      ...auth,
    });
    secrets.push(again.code!, second.verifier, tokens.body.access_token, tokens.body.refresh_token);
    await fetch(`${server.origin}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.body.refresh_token, ...auth }),
    });
    // The consent was remembered in this browser: no consent record this time.
    expect(since(from)).toEqual([
      ['oauth/sign-in', 'ok', null],
      ['oauth/token', 'ok', null],
      ['oauth/revoke', 'ok', null],
    ]);
    expect(sink.records.at(-1)).toMatchObject({ principal: 'carol', clientId: client.client_id, argumentsJson: '{"grant_ended":true}' });

    const trail = JSON.stringify(sink.records);
    for (const secret of secrets.filter((s) => s.length >= 8)) expect(trail).not.toContain(secret);
  });

  it('every refusal is one record naming its reason', async () => {
    const client = await register(server.origin, { token_endpoint_auth_method: 'client_secret_basic' });
    const from = sink.records.length;
    // An unregistered redirect URI, an unknown client, a plain PKCE challenge.
    await fetch(authorizeUrl(server.origin, { client_id: client.client_id, redirect_uri: 'https://evil.example/cb', code_challenge: pkce().challenge }), {
      redirect: 'manual',
    });
    await fetch(authorizeUrl(server.origin, { client_id: 'nobody', redirect_uri: APP_REDIRECT, code_challenge: pkce().challenge }), { redirect: 'manual' });
    await fetch(authorizeUrl(server.origin, { client_id: client.client_id, redirect_uri: APP_REDIRECT, code_challenge_method: 'plain', code_challenge: 'x' }), {
      redirect: 'manual',
    });
    // The wrong client secret; a code nobody issued; an unknown grant type.
    const wrong = `Basic ${Buffer.from(`${client.client_id}:not-the-secret`).toString('base64')}`;
    await token(server.origin, { grant_type: 'authorization_code', code: 'made-up', redirect_uri: APP_REDIRECT, code_verifier: 'v' }, { authorization: wrong });
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    await token(server.origin, { grant_type: 'authorization_code', code: 'made-up', redirect_uri: APP_REDIRECT, code_verifier: 'v' }, { authorization: basic });
    await token(server.origin, { grant_type: 'password' }, { authorization: basic });
    // A consent posted from another site; a provider callback with a state nobody issued.
    await fetch(`${server.origin}/oauth/consent`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: 'request=x&decision=allow',
    });
    await fetch(`${server.origin}/oauth/callback?state=${'a'.repeat(43)}&code=stolen`);
    expect(since(from)).toEqual([
      ['oauth/authorize', 'refused', 'invalid_redirect_uri'],
      ['oauth/authorize', 'refused', 'invalid_client'],
      ['oauth/authorize', 'refused', 'invalid_request'],
      ['oauth/token', 'refused', 'invalid_client'],
      ['oauth/token', 'refused', 'invalid_grant'],
      ['oauth/token', 'refused', 'unsupported_grant_type'],
      ['oauth/consent', 'refused', 'cross_site'],
      ['oauth/callback', 'refused', 'expired'],
    ]);
    const records: AuditRecord[] = sink.records.slice(from);
    expect(records.every((r) => r.isError && r.instance === 'facade-1')).toBe(true);
    const trail = JSON.stringify(records);
    for (const secret of [client.client_secret!, 'not-the-secret', 'made-up', 'stolen']) expect(trail).not.toContain(secret);
  });

  it('one address cannot flood the trail with refusals: past 60 a minute they are counted, not written; other events still are', async () => {
    const from = sink.records.length;
    for (let i = 0; i < 70; i++) await fetch(authorizeUrl(server.origin, { client_id: 'nobody', redirect_uri: APP_REDIRECT }), { redirect: 'manual' });
    const refused = sink.records.slice(from).filter((r) => r.status === 'refused').length;
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThanOrEqual(60);
    expect(server.logs()).toMatch(/refusals are audited; the rest are counted, not written/);
    const client = await register(server.origin);
    expect(sink.records.at(-1)).toMatchObject({ method: 'oauth/register', clientId: client.client_id, status: 'ok' });
  });
});
