import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  builtCli,
  launchChromium,
  openConsolePage,
  requireChromium,
  saveScreenshot,
  seriousAccessibilityViolations,
  startConsoleProcess,
  type ConsoleProcess,
  type TestBrowser,
} from '../helpers/console.js';

/**
 * Issue 25: `toolwright console` in a real browser. Started with a server's command line, the
 * page shows the connection and the server's tools; started alone, the page connects and
 * shows why a connection failed.
 */
const haveChromium = requireChromium();

describe.skipIf(!haveChromium)('toolwright console: connecting', () => {
  let browser: TestBrowser;
  const consoles: ConsoleProcess[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(consoles.map((c) => c.stop()));
  });

  it('prints its URL with a token first, and shows the server it was started with and its tools', async () => {
    const console_ = await startConsoleProcess(['--', process.execPath, builtCli, 'serve']);
    consoles.push(console_);
    expect(console_.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{20,}$/);
    const { page, errors } = await openConsolePage(browser, console_);
    await expect.poll(() => page.getByTestId('connection-status').textContent(), { timeout: 20_000 }).toMatch(/Connected: toolwright \(modern\)/);
    await page.getByRole('link', { name: 'Tools' }).click();
    await expect.poll(() => page.locator('.tool-list').textContent(), { timeout: 20_000 }).toContain('calculate');
    // The token left the address bar (it stays in the tab's sessionStorage).
    expect(page.url()).not.toContain('token=');
    await saveScreenshot(page, 'tools');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    // Done with this page and console: left open, they cost Chromium ~0.1 core while the next test runs.
    await page.context().close();
    await console_.stop();
  });

  it('connects from the page, and says why a connection failed', async () => {
    const console_ = await startConsoleProcess([]);
    consoles.push(console_);
    const closedPort = await portNobodyListensOn();
    const { page, errors } = await openConsolePage(browser, console_);
    await expect.poll(() => page.getByTestId('connection-status').textContent()).toBe('Not connected');
    await page.getByLabel('Server URL').fill(`http://127.0.0.1:${closedPort}/mcp`);
    await page.getByRole('button', { name: 'Connect' }).click();
    const alert = page.getByTestId('connect-error').first();
    await expect.poll(() => alert.textContent(), { timeout: 20_000 }).toMatch(/refused|could not|ECONNREFUSED/i);
    // The doctor's verdict, step by step: the address resolved, nobody listens on the port.
    await page.getByRole('button', { name: 'Run the connection doctor' }).click();
    const report = page.getByTestId('doctor-report');
    await report.waitFor({ timeout: 30_000 });
    expect(await report.locator('[data-step="dns"]').getAttribute('data-status')).toBe('ok');
    expect(await report.locator('[data-step="tcp"]').getAttribute('data-status')).toBe('failed');
    expect(await report.textContent()).toMatch(/the connection does not work/);
    expect(await report.locator('[data-step="tcp"]').textContent()).toMatch(/Try: /);
    await saveScreenshot(page, 'connect-failed');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  });
});

async function portNobodyListensOn(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
