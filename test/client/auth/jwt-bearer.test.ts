/** The jwt-bearer grant (RFC 7523 §2.1): a workload's platform-issued identity token, or an enterprise IdP's ID-JAG, presented once. */
import { afterEach, describe, expect, it } from 'vitest';
import { AuthorizationError, idJagAssertion, OAuthClient } from '../../../src/client.js';
import { json, startScriptedHttp } from '../../helpers/scripted-http.js';

type Scripted = Awaited<ReturnType<typeof startScriptedHttp>>;
const servers: Scripted[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.close();
});

async function setUp(accept: (form: URLSearchParams) => boolean) {
  const forms: URLSearchParams[] = [];
  const as = await startScriptedHttp((req, res, x) => {
    const issuer = as.url.replace(/\/mcp$/, '');
    if (req.url === '/.well-known/oauth-authorization-server')
      return json(res, { issuer, token_endpoint: `${issuer}/token`, token_endpoint_auth_methods_supported: ['none'] });
    const form = new URLSearchParams(x.raw);
    forms.push(form);
    if (!accept(form))
      return void res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'invalid_grant', error_description: 'assertion expired' }));
    json(res, { access_token: 'workload-token', token_type: 'Bearer', expires_in: 600 });
  });
  const rs = await startScriptedHttp((req, res) => {
    if (req.url?.startsWith('/.well-known/oauth-protected-resource'))
      return json(res, { resource: rs.url, authorization_servers: [as.url.replace(/\/mcp$/, '')], scopes_supported: ['jobs:run'] });
    if (req.headers.authorization !== 'Bearer workload-token') return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    json(res, { ok: true });
  });
  servers.push(as, rs);
  return { rs, forms };
}

describe('jwt-bearer: workload identity federation', () => {
  it('exchanges the workload token for an access token for the resource, with no user and no secret', async () => {
    const { rs, forms } = await setUp((f) => f.get('assertion') === 'platform.jwt');
    const oauth = new OAuthClient(rs.url, { grantType: 'jwt-bearer', clientId: 'workload', assertion: async () => 'platform.jwt' });
    expect((await oauth.fetch(rs.url, { method: 'POST', body: '{}' })).status).toBe(200);
    expect(Object.fromEntries(forms[0])).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: 'platform.jwt',
      resource: rs.url,
      scope: 'jobs:run',
      client_id: 'workload',
    });
  });

  it('reports a refused assertion once: no retry, no other grant', async () => {
    const { rs, forms } = await setUp(() => false);
    const oauth = new OAuthClient(rs.url, { grantType: 'jwt-bearer', clientId: 'workload', assertion: 'expired.jwt' });
    const err = await oauth.fetch(rs.url, { method: 'POST', body: '{}' }).catch((e) => e);
    expect(err).toBeInstanceOf(AuthorizationError);
    expect(err.oauthError).toBe('invalid_grant');
    expect(err.message).not.toContain('expired.jwt');
    expect(forms).toHaveLength(1);
  });

  it('needs a client id and an assertion', () => {
    expect(() => new OAuthClient('https://mcp.example.com/mcp', { grantType: 'jwt-bearer', clientId: 'w' })).toThrow(/jwt-bearer needs clientId and assertion/);
  });
});

describe('enterprise-managed authorization: an ID-JAG from the identity provider as the assertion', () => {
  it("exchanges the user's ID token at the identity provider for an ID-JAG for this authorization server and resource, then the ID-JAG for a token", async () => {
    const idpForms: URLSearchParams[] = [];
    const idp = await startScriptedHttp((_req, res, x) => {
      const form = new URLSearchParams(x.raw);
      idpForms.push(form);
      json(res, { access_token: `id-jag-for.${form.get('audience')}`, issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A' });
    });
    servers.push(idp);
    const { rs, forms } = await setUp((f) => f.get('assertion')?.startsWith('id-jag-for.') === true);
    const oauth = new OAuthClient(rs.url, {
      grantType: 'jwt-bearer',
      clientId: 'mcp-client',
      clientSecret: 'mcp-secret',
      assertion: idJagAssertion({ tokenEndpoint: idp.url, clientId: 'idp-client', idToken: 'user.id.token' }),
    });
    expect((await oauth.fetch(rs.url, { method: 'POST', body: '{}' })).status).toBe(200);
    const issuer = new URL(forms[0].get('assertion')!.slice('id-jag-for.'.length)).origin;
    expect(Object.fromEntries(idpForms[0])).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      audience: issuer,
      resource: rs.url,
      subject_token: 'user.id.token',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      client_id: 'idp-client',
      scope: 'jobs:run',
    });
    expect(forms[0].get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
  });

  it('refuses an identity provider answer that is not an ID-JAG', async () => {
    const idp = await startScriptedHttp((_req, res) =>
      json(res, { access_token: 'plain', issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' }),
    );
    servers.push(idp);
    const { rs, forms } = await setUp(() => true);
    const oauth = new OAuthClient(rs.url, {
      grantType: 'jwt-bearer',
      clientId: 'c',
      assertion: idJagAssertion({ tokenEndpoint: idp.url, clientId: 'i', idToken: 't' }),
    });
    const err = await oauth.fetch(rs.url, { method: 'POST', body: '{}' }).catch((e) => e);
    expect(err.message).toMatch(/did not issue an ID-JAG/);
    expect(forms).toHaveLength(0);
  });
});
