import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';

/**
 * A small OAuth 2.0 provider shaped like GitHub's OAuth apps (no OpenID Connect): an
 * authorization page the user approves with a form (or none, with `skipConsent`), a token
 * endpoint that answers JSON when asked (errors with 200 and `error`, as GitHub does), PKCE
 * S256, a user API, and token revocation by DELETE /applications/{client_id}/token.
 */
export interface GithubLike {
  readonly url: string;
  readonly apiUrl: string;
  /** Access tokens now valid, by token: the user id. */
  readonly live: Map<string, number>;
  readonly revoked: string[];
  close(): Promise<void>;
}

export const GITHUB_CLIENT = { id: 'Iv1.toolwright', secret: 'github-secret-0123456789abcdef0123456789' };
export const GITHUB_USER = { id: 4242, login: 'octo' };

export async function startGithubLike(options: { callbackUrl: string; skipConsent?: boolean }): Promise<GithubLike> {
  const codes = new Map<string, { challenge?: string; redirectUri: string; scope: string }>();
  const live = new Map<string, number>();
  const revoked: string[] = [];
  const http = createServer((req, res) => serve(req, res).catch(() => res.writeHead(500).end()));
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const body =
      req.method === 'GET'
        ? ''
        : await new Promise<string>((resolve) => {
            let text = '';
            req.on('data', (c) => (text += c));
            req.on('end', () => resolve(text));
          });
    if (url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== GITHUB_CLIENT.id || q.get('redirect_uri') !== options.callbackUrl) return res.writeHead(400).end('bad client');
      if (options.skipConsent || req.method === 'POST') {
        const code = randomBytes(16).toString('hex');
        codes.set(code, { challenge: q.get('code_challenge') ?? undefined, redirectUri: q.get('redirect_uri')!, scope: q.get('scope') ?? '' });
        const back = new URL(q.get('redirect_uri')!);
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') ?? '');
        return res.writeHead(302, { location: back.href }).end();
      }
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<form method="post" action="${url.pathname}${url.search.replace(/&/g, '&amp;')}"><button name="authorize" value="1">Authorize</button></form>`);
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      const form = new URLSearchParams(body);
      const json = (value: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (form.get('client_id') !== GITHUB_CLIENT.id || form.get('client_secret') !== GITHUB_CLIENT.secret)
        return json({ error: 'incorrect_client_credentials' });
      const code = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!code || code.redirectUri !== form.get('redirect_uri')) return json({ error: 'bad_verification_code' });
      const verifier = form.get('code_verifier') ?? '';
      if (code.challenge && createHash('sha256').update(verifier).digest('base64url') !== code.challenge) return json({ error: 'bad_verification_code' });
      const token = `gho_${randomBytes(18).toString('hex')}`;
      live.set(token, GITHUB_USER.id);
      return json({ access_token: token, token_type: 'bearer', scope: code.scope.replace(/ /g, ',') });
    }
    if (url.pathname === '/api/user') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (!live.has(token)) return res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Bad credentials"}');
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(GITHUB_USER));
    }
    if (url.pathname === `/api/applications/${encodeURIComponent(GITHUB_CLIENT.id)}/token` && req.method === 'DELETE') {
      const expected = `Basic ${Buffer.from(`${encodeURIComponent(GITHUB_CLIENT.id)}:${encodeURIComponent(GITHUB_CLIENT.secret)}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return res.writeHead(404).end();
      const token = (JSON.parse(body || '{}') as { access_token?: string }).access_token ?? '';
      if (live.delete(token)) revoked.push(token);
      return res.writeHead(204).end();
    }
    res.writeHead(404).end();
  };
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url,
    apiUrl: `${url}/api`,
    live,
    revoked,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
