/**
 * Issue 34: "The console's and the CLI's login work against it unchanged". The console (a real
 * `toolwright console` process, driven in Chromium) connects to a server behind the facade with
 * the GitHub preset (a GitHub-like provider on 127.0.0.1 stands in for github.com); the
 * connection asks for a login, the page offers it, the person goes through toolwright's consent
 * and the provider's page (played over HTTP by the test's browser helper), and the page then
 * connects with the facade's token and lists the server's tools.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, type ServerPlan } from '../../src/config/build.js';
import { defineTool } from '../../src/server/tool.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { launchChromium, openConsolePage, requireChromium, startConsoleProcess, type ConsoleProcess, type TestBrowser } from '../helpers/console.js';
import { freePort } from '../helpers/free-port.js';
import { browse } from './helpers/browser.js';
import { ENCRYPTION_KEY } from './helpers/facade-server.js';
import { GITHUB_CLIENT, startGithubLike, type GithubLike } from './helpers/github-like.js';

const haveChromium = requireChromium();

describe.skipIf(!haveChromium)('the console logs in through the facade', () => {
  let github: GithubLike;
  let plan: ServerPlan;
  let http: HttpServerHandle;
  let dir: string;
  let browser: TestBrowser;
  let console_: ConsoleProcess;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolwright-console-facade-'));
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    github = await startGithubLike({ callbackUrl: `${origin}/oauth/callback` });
    process.env.TW_TEST_GITHUB_SECRET = GITHUB_CLIENT.secret;
    process.env.TW_TEST_SEAL_KEY = ENCRYPTION_KEY;
    plan = buildServer(
      {
        server: {
          audit: false,
          auth: {
            resource: `${origin}/mcp`,
            scopesSupported: ['tools:read'],
            proxy: {
              provider: 'github',
              clientId: GITHUB_CLIENT.id,
              clientSecret: '${TW_TEST_GITHUB_SECRET}',
              encryptionKey: '${TW_TEST_SEAL_KEY}',
              githubUrl: github.url,
              githubApiUrl: github.apiUrl,
            },
          },
        },
      },
      dir,
      '0.0.0-test',
    );
    plan.server.addTool(
      defineTool({
        name: 'who_am_i',
        description: 'Says who the caller is.',
        inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
        handler: async (_args, ctx) => `you are ${ctx.caller.id}`,
      }),
    );
    http = await serveHttp(plan.server, { ...plan.http, port });
    browser = await launchChromium();
    // Tokens go to a config folder of the test's own, as `toolwright login` would store them.
    console_ = await startConsoleProcess([], { env: { XDG_CONFIG_HOME: dir } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await console_?.stop();
    await http?.close();
    await plan?.authProxy?.close();
    await github?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('offers the login, goes through toolwright consent and the provider, and connects with the facade token', async () => {
    const { page, errors } = await openConsolePage(browser, console_);
    await page.getByLabel('Server URL').fill(http.url);
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => page.getByTestId('connect-error').first().textContent(), { timeout: 20_000 }).toMatch(/log in/i);
    await page.getByRole('button', { name: 'Log in to this server' }).click();
    const link = page.getByTestId('sign-in-link');
    await link.waitFor({ timeout: 20_000 });
    const signInAt = (await link.getAttribute('href')) ?? '';
    // The sign-in starts at the facade (its /authorize), never at the provider directly.
    expect(new URL(signInAt).origin).toBe(new URL(http.url).origin);
    const run = await browse(signInAt, { stopAt: (u) => u.origin !== new URL(http.url).origin && u.origin !== github.url });
    expect(run.sawConsent).toBe(true);
    expect(run.landedOn?.searchParams.get('code')).toBeTruthy();
    // The browser reaches the console's loopback callback with the facade's code.
    await fetch(run.landedOn!, { redirect: 'manual' }).then((r) => r.text());
    await expect.poll(() => page.getByTestId('connection-status').textContent(), { timeout: 20_000 }).toMatch(/^Connected:/);
    await expect.poll(() => page.locator('.tool-list').textContent(), { timeout: 20_000 }).toContain('who_am_i');
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  });
});
