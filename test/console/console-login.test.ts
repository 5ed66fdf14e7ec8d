/**
 * Issue 25: "OAuth login through the client's flow". The console connects to a server guarded
 * by a real authorization server (oidc-provider); the connection fails asking for a login; the
 * page offers it, shows where to sign in, the person signs in (test/helpers/browser.ts plays
 * the authorization server's pages), and the page connects with the stored tokens.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpServerHandle } from '../../src/transports/http-server.js';
import { playBrowser } from '../helpers/browser.js';
import {
  launchChromium,
  openConsolePage,
  requireChromium,
  seriousAccessibilityViolations,
  startConsoleProcess,
  type ConsoleProcess,
  type TestBrowser,
} from '../helpers/console.js';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../helpers/oidc.js';
import { serveProtectedNotes, type NoteCall } from '../helpers/protected-notes.js';

const haveChromium = requireChromium();

describe.skipIf(!haveChromium)('the console logs in to a server that asks for it', () => {
  let as: LocalAuthorizationServer;
  let http: HttpServerHandle;
  let browser: TestBrowser;
  let console_: ConsoleProcess;
  let config: string;
  const calls: NoteCall[] = [];

  beforeAll(async () => {
    config = await mkdtemp(join(tmpdir(), 'toolwright-console-login-'));
    as = await startAuthorizationServer({ interactive: true });
    http = await serveProtectedNotes(as, calls);
    browser = await launchChromium();
    // Tokens go to a config folder of the test's own, as `toolwright login` would store them.
    console_ = await startConsoleProcess([], { env: { XDG_CONFIG_HOME: config } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await console_?.stop();
    await http?.close();
    await as?.close();
    await rm(config, { recursive: true, force: true });
  });

  it('offers the login, shows where to sign in, and connects after it', async () => {
    const { page, errors } = await openConsolePage(browser, console_);
    await page.getByLabel('Server URL').fill(http.url);
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => page.getByTestId('connect-error').first().textContent(), { timeout: 20_000 }).toMatch(/log in/i);
    await page.getByRole('button', { name: 'Log in to this server' }).click();
    const link = page.getByTestId('sign-in-link');
    await link.waitFor({ timeout: 20_000 });
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    const signInAt = await link.getAttribute('href');
    expect(signInAt).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    // The person signs in and consents in another tab; the authorization server sends them back.
    const run = await playBrowser(signInAt!, { login: 'dana' });
    expect(run.landedOn?.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    await expect.poll(() => page.getByTestId('connection-status').textContent(), { timeout: 20_000 }).toMatch(/^Connected:/);
    await expect.poll(() => page.locator('.tool-list').textContent(), { timeout: 20_000 }).toContain('read_notes');
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  });
});
