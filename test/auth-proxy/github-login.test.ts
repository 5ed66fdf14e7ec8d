/**
 * A server built from a config with `server.auth.proxy: { provider: github }` (a GitHub-like
 * OAuth 2.0 provider without OpenID on 127.0.0.1 stands in for github.com), and `toolwright
 * login` as a child process: it discovers the facade, registers, prints the URL; the test is
 * the user's browser (toolwright's consent, the provider's authorize page); the stored login
 * then calls a tool in another process. The provider's token is sealed at rest in the SQLite
 * store, and the identity comes from the user API.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstreamToken } from '../../src/policy/auth/upstream-token.js';
import { defineTool } from '../../src/server/tool.js';
import type { HttpServerHandle } from '../../src/transports/http-server.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { browse } from './helpers/browser.js';
import { startGithubFacade, type GithubFacade } from './helpers/github-facade.js';
import { GITHUB_CLIENT, GITHUB_USER, type GithubLike } from './helpers/github-like.js';

let facade: GithubFacade;
let github: GithubLike;
let http: HttpServerHandle;
let dir: string;
const seen: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolwright-github-facade-'));
  const githubLogin = defineTool({
    name: 'github_login',
    description: "Calls the provider API with the caller's provider token.",
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
    handler: async (_args, ctx) => {
      const token = await upstreamToken(ctx.caller);
      seen.push(token);
      const res = await fetch(`${github.apiUrl}/user`, { headers: { authorization: `Bearer ${token}` } });
      return `${ctx.caller.id} is ${((await res.json()) as { login: string }).login}`;
    },
  });
  facade = await startGithubFacade(dir, [githubLogin], { store: 'auth-proxy.db' });
  ({ github, http } = facade);
});
afterAll(async () => {
  await facade?.close();
  await rm(dir, { recursive: true, force: true });
});

const env = () => ({ XDG_CONFIG_HOME: dir, DISPLAY: undefined, WAYLAND_DISPLAY: undefined });

describe('toolwright login against the facade, GitHub preset', () => {
  it('logs in through consent and the provider, and the stored login calls a tool that reaches GitHub as the user', async () => {
    const login = startBuiltCli(['login', http.url, '--no-browser'], { env: env() });
    const [, url] = await login.waitForStderr(/^ {2}(http\S+)$/m);
    const run = await browse(url, { stopAt: (u) => u.origin !== new URL(http.url).origin && u.origin !== github.url });
    expect(run.sawConsent).toBe(true);
    expect(run.landedOn?.searchParams.get('code')).toBeTruthy();
    await fetch(run.landedOn!, { redirect: 'manual' }).then((r) => r.text());
    expect((await login.exit).code).toBe(0);

    const call = startBuiltCli(['call', http.url, 'github_login'], { env: env() });
    expect((await call.exit).code).toBe(0);
    expect(call.stdout().trim()).toBe(`${GITHUB_USER.id} is ${GITHUB_USER.login}`);
    // The tool got the provider's token; the store holds it only sealed.
    expect(seen.at(-1)).toMatch(/^gho_/);
    const db = await readFile(join(dir, 'auth-proxy.db'));
    const wal = await readFile(join(dir, 'auth-proxy.db-wal')).catch(() => Buffer.alloc(0));
    expect(Buffer.concat([db, wal]).includes(seen.at(-1)!)).toBe(false);
    expect(Buffer.concat([db, wal]).includes(GITHUB_CLIENT.secret)).toBe(false);
  });

  it('the metadata points at the facade: protected-resource metadata names it, RFC 8414 metadata describes it', async () => {
    const origin = new URL(http.url).origin;
    const prm = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: http.url, authorization_servers: [origin] });
    const as = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(JSON.stringify(as)).not.toContain(GITHUB_CLIENT.id);
  });
});
