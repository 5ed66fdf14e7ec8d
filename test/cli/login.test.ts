/**
 * `toolwright login` / `logout` and the stored tokens `list` and `call` use, against a real
 * authorization server (oidc-provider) guarding a real toolwright server. The CLI runs
 * in-process with no display: it prints the authorization URL, and the test is the user
 * who opens it (over HTTP), signs in and consents.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../helpers/cli.js';
import { runCli } from '../../src/cli/program.js';
import { FileTokenStore } from '../../src/client.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { playBrowser } from '../helpers/browser.js';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../helpers/oidc.js';
import { memoryLogger } from '../helpers/wire.js';

let as: LocalAuthorizationServer;
let http: HttpServerHandle;
let config: string;
const saved = { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, DISPLAY: process.env.DISPLAY, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY };

beforeAll(async () => {
  config = await mkdtemp(join(tmpdir(), 'toolwright-login-'));
  process.env.XDG_CONFIG_HOME = config;
  // No display: the CLI cannot open a browser and prints the URL.
  delete process.env.DISPLAY;
  delete process.env.WAYLAND_DISPLAY;
  as = await startAuthorizationServer({ interactive: true });
  const server = new ToolServer({
    name: 'protected',
    logger: memoryLogger().logger,
    audit: false,
    scopes: { defaultScopes: { readOnly: ['tools:read'], other: ['tools:write'] } },
    tools: [
      { name: 'read_notes', description: 'Reads.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true }, handler: () => 'three notes' },
      {
        name: 'write_note',
        description: 'Writes.',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        annotations: { destructiveHint: false },
        handler: (a: { text?: string }) => `wrote ${a.text}`,
      },
    ],
  });
  http = await serveHttp(server, { port: 0, auth: { issuer: as.issuer, scopesSupported: ['tools:read'] } });
});
afterAll(async () => {
  await http?.close();
  await as?.close();
  await rm(config, { recursive: true, force: true });
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

const run = runCliCaptured;

/** Runs `toolwright login …` and signs in as the user when the URL appears. */
async function login(...extra: string[]) {
  let stderr = '';
  let browsing: Promise<unknown> | undefined;
  const code = await runCli(['login', http.url, ...extra], {
    stdout: () => {},
    stderr: (text) => {
      stderr += text;
      const url = /^ {2}(http\S+)$/m.exec(text)?.[1];
      if (url && !browsing) browsing = playBrowser(url, { login: 'carol' });
    },
  });
  await browsing;
  return { code, stderr };
}

describe('toolwright login, then list and call with the stored tokens', () => {
  it('before logging in, list says to log in, with the command', async () => {
    const { code, stderr } = await run('list', http.url);
    expect(code).toBe(2);
    expect(stderr).toContain(`needs you to log in with scope tools:read: run toolwright login ${http.url} --scope tools:read`);
  });

  it('logs in through the browser, stores the tokens for the user alone, and list and call use them', async () => {
    const { code, stderr } = await login();
    expect(code).toBe(0);
    expect(stderr).toContain('to log in, open this URL in a browser');
    expect(stderr).toMatch(/logged in to .* \(authorization server http:\/\/127\.0\.0\.1:\d+; scope: [^)]*tools:read[^)]*\); it will be refreshed as needed/);
    const dir = join(config, 'toolwright', 'oauth', 'servers');
    const [file] = await readdir(dir);
    expect((await stat(join(dir, file))).mode & 0o777).toBe(0o600);

    const listed = await run('list', http.url, '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).tools.map((t: { name: string }) => t.name)).toEqual(['read_notes']);
    const called = await run('call', http.url, 'read_notes');
    expect([called.code, called.stdout.trim()]).toEqual([0, 'three notes']);
    // Nothing secret on the terminal.
    const tokens = (await new FileTokenStore().loadTokens(http.url))!;
    expect(`${stderr}${listed.stdout}${listed.stderr}${called.stdout}${called.stderr}`).not.toContain(tokens.accessToken);
  });

  it('refreshes an expired token on its own', async () => {
    const store = new FileTokenStore();
    const before = (await store.loadTokens(http.url))!;
    await store.saveTokens({ ...before, expiresAt: Date.now() - 1000, obtainedAt: Date.now() - 600_000 });
    const called = await run('call', http.url, 'read_notes');
    expect(called.code).toBe(0);
    const after = (await store.loadTokens(http.url))!;
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.expiresAt).toBeGreaterThan(Date.now());
  });

  it('a tool that needs more scope says how to log in for it; after that login the call goes through', async () => {
    const refused = await run('call', http.url, 'write_note', 'text=hi');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/needs you to log in with scope .*tools:write.*: run toolwright login \S+ --scope '[^']*tools:write[^']*'/);
    const scope = /--scope '([^']+)'/.exec(refused.stderr)![1];
    expect((await login('--scope', scope)).code).toBe(0);
    const called = await run('call', http.url, 'write_note', 'text=hi');
    expect([called.code, called.stdout.trim()]).toEqual([0, 'wrote hi']);
  });

  it('logout revokes the tokens at the authorization server (RFC 7009) and forgets them', async () => {
    const tokens = (await new FileTokenStore().loadTokens(http.url))!;
    expect(tokens.refreshToken).toBeDefined();
    expect((await run('logout', http.url)).stderr).toContain('its tokens are revoked and deleted');
    expect((await run('logout', http.url)).stderr).toContain('no stored tokens');
    expect((await run('list', http.url)).stderr).toContain('run toolwright login');
    // The refresh token is dead at the authorization server, not only forgotten here.
    const metadata = await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json();
    const refused = await fetch(metadata.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken!, client_id: tokens.clientId }),
    });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toBe('invalid_grant');
  });

  it('login refuses a server that asks for no authorization, and stdio targets', async () => {
    const open = await serveHttp(new ToolServer({ name: 'open', logger: memoryLogger().logger, audit: false, tools: [] }), { port: 0 });
    try {
      const { code, stderr } = await run('login', open.url, '--no-browser', '--timeout', '2000');
      expect(code).toBe(2);
      expect(stderr).toContain('does not ask for authorization');
    } finally {
      await open.close();
    }
    expect((await run('login', 'file:///x')).code).toBe(1);
  });
});
