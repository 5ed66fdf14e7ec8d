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
import { defineTool } from '../../src/server/tool.js';
import type { HttpServerHandle } from '../../src/transports/http-server.js';
import { launchChromium, openConsolePage, requireChromium, startConsoleProcess, type ConsoleProcess, type TestBrowser } from '../helpers/console.js';
import { browse } from './helpers/browser.js';
import { startGithubFacade, type GithubFacade } from './helpers/github-facade.js';
import type { GithubLike } from './helpers/github-like.js';

const haveChromium = requireChromium();

describe.skipIf(!haveChromium)('the console logs in through the facade', () => {
  let facade: GithubFacade;
  let http: HttpServerHandle;
  let github: GithubLike;
  let dir: string;
  let browser: TestBrowser;
  let console_: ConsoleProcess;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolwright-console-facade-'));
    const whoAmI = defineTool({
      name: 'who_am_i',
      description: 'Says who the caller is.',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      handler: async (_args, ctx) => `you are ${ctx.caller.id}`,
    });
    facade = await startGithubFacade(dir, [whoAmI]);
    ({ http, github } = facade);
    browser = await launchChromium();
    // Tokens go to a config folder of the test's own, as `toolwright login` would store them.
    console_ = await startConsoleProcess([], { env: { XDG_CONFIG_HOME: dir } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await console_?.stop();
    await facade?.close();
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
