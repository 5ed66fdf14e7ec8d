/**
 * An HTTP upstream behind OAuth with `auth: login`: the gateway uses the tokens `toolwright login`
 * stored for that URL (the same token store), refreshes them as they expire, and until someone
 * logs in the upstream is down with a health that says which login to run. A real authorization
 * server (oidc-provider) guards a real toolwright server; the CLI logs in in-process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTokenStore } from '../../src/client.js';
import { validateConfig } from '../../src/config/validate.js';
import { configProblems } from '../helpers/config.js';
import { runCli } from '../../src/cli/program.js';
import { Gateway, mount } from '../../src/gateway/index.js';
import { ToolServer } from '../../src/server/server.js';
import { createInMemoryPair } from '../../src/testing.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { playBrowser } from '../helpers/browser.js';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../helpers/oidc.js';
import { memoryLogger } from '../helpers/wire.js';
import { gatewayServer } from './helpers.js';

let as: LocalAuthorizationServer;
let http: HttpServerHandle;
let config: string;
const saved = { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, DISPLAY: process.env.DISPLAY, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY };

beforeAll(async () => {
  config = await mkdtemp(join(tmpdir(), 'tw-gateway-login-'));
  process.env.XDG_CONFIG_HOME = config;
  delete process.env.DISPLAY;
  delete process.env.WAYLAND_DISPLAY;
  as = await startAuthorizationServer({ interactive: true });
  const protectedServer = new ToolServer({
    name: 'protected',
    logger: memoryLogger().logger,
    audit: false,
    scopes: { defaultScopes: { readOnly: ['tools:read'], other: ['tools:write'] } },
    tools: [{ name: 'read_notes', description: 'Reads.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true }, handler: () => 'three notes' }],
  });
  http = await serveHttp(protectedServer, { port: 0, auth: { issuer: as.issuer, scopesSupported: ['tools:read'] } });
}, 60_000);
afterAll(async () => {
  await http?.close();
  await as?.close();
  await rm(config, { recursive: true, force: true });
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

async function login(): Promise<number> {
  let browsing: Promise<unknown> | undefined;
  const code = await runCli(['login', http.url], {
    stdout: () => {},
    stderr: (text) => {
      const url = /^ {2}(http\S+)$/m.exec(text)?.[1];
      if (url && !browsing) browsing = playBrowser(url, { login: 'carol' });
    },
  });
  await browsing;
  return code;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error(`${what}: not within 15 s`);
}

describe('an upstream with auth: login', () => {
  it('before any login it is down, and its health says which login to run', async () => {
    const { server } = gatewayServer();
    const gateway = new Gateway(server);
    gateway.add('notes', { url: http.url, auth: 'login' });
    try {
      await gateway.started(5_000);
      await until(() => gateway.health()[0].lastError !== undefined, 'failed once');
      expect(gateway.health()[0]).toMatchObject({ state: 'down', tools: 0 });
      expect(gateway.health()[0].lastError).toContain(`run toolwright login ${http.url}`);
    } finally {
      await gateway.close();
    }
  });

  it('after toolwright login, lists and calls with the stored tokens, refreshing an expired one', async () => {
    expect(await login()).toBe(0);
    const store = new FileTokenStore();
    const before = (await store.loadTokens(http.url))!;
    // Expired: the gateway's client refreshes it before it is used.
    await store.saveTokens({ ...before, expiresAt: Date.now() - 1000, obtainedAt: Date.now() - 600_000 });
    const { server } = gatewayServer();
    const m = mount(server, 'notes', { url: http.url, auth: 'login' });
    await m.ready;
    const pair = await createInMemoryPair(server);
    try {
      expect(server.tools.names()).toEqual(['notes_read_notes']);
      const result = await pair.client.callTool('notes_read_notes', {});
      expect(result.content).toEqual([{ type: 'text', text: 'three notes' }]);
      const after = (await store.loadTokens(http.url))!;
      expect(after.accessToken).not.toBe(before.accessToken);
      expect(JSON.stringify(m.health())).not.toContain(after.accessToken);
    } finally {
      await pair.close();
      await m.close();
    }
  }, 60_000);

  it('the config takes auth: login for an HTTP upstream, and nothing else there', () => {
    expect(configProblems(() => validateConfig({ upstreams: { notes: { url: 'https://notes.example.com/mcp', auth: 'login' } } }, 'c.json'))).toEqual([]);
    expect(
      configProblems(() => validateConfig({ upstreams: { notes: { url: 'https://notes.example.com/mcp', auth: 'basic' } } }, 'c.json')).join('\n'),
    ).toMatch(/upstreams/);
  });

  it('refuses auth: login beside forwardAuthorization or an Authorization header', () => {
    const { server } = gatewayServer();
    expect(() => mount(server, 'a', { url: http.url, auth: 'login', forwardAuthorization: true })).toThrow(/choose one/);
    expect(() => mount(server, 'b', { url: http.url, auth: 'login', headers: { Authorization: 'Bearer x' } })).toThrow(/choose one/);
  });
});
