import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectedConsole,
  requireChromium,
  saveScreenshot,
  seriousAccessibilityViolations,
  type ConnectedConsole,
  type ConsoleProcess,
} from '../helpers/console.js';

/**
 * Issue 25, MCP Apps in the console, in a real browser: a tool's ui:// app renders in a
 * sandboxed frame, gets the tool's result, calls an app-only tool back through the bridge and
 * sends a message the page shows; a hostile app reaches neither the console's API, its token,
 * its storage nor its page, and cannot call a tool kept from apps.
 */
const haveChromium = requireChromium();
const tools = fileURLToPath(new URL('../fixtures/console/app-tools.ts', import.meta.url));

describe.skipIf(!haveChromium)('MCP Apps in the console', () => {
  let session: ConnectedConsole;
  let console_: ConsoleProcess;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    session = await connectedConsole(tools);
    ({ console: console_, page, errors } = session);
  }, 60_000);

  afterAll(async () => {
    await session?.close();
  });

  const call = async (tool: string) => {
    await page.goto(`${console_.origin}/#/tools/${tool}`);
    await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 20_000 }).toBe('Ready');
    await page.getByRole('button', { name: `Call ${tool}` }).click();
    await page.getByTestId('call-result').waitFor({ timeout: 20_000 });
  };

  it('renders the app with the result, and exchanges messages with it', async () => {
    await call('show_counter');
    const frame = page.frameLocator('iframe.app-frame');
    await expect.poll(() => frame.locator('#count').textContent(), { timeout: 20_000 }).toBe('0');
    expect(await page.locator('iframe.app-frame').getAttribute('sandbox')).toBe('allow-scripts');
    // The app calls its app-only tool through the bridge, and tells the conversation.
    await frame.locator('#bump').click();
    await expect.poll(() => frame.locator('#count').textContent(), { timeout: 20_000 }).toBe('1');
    await frame.locator('#tell').click();
    await expect.poll(() => page.getByTestId('app-notes').textContent(), { timeout: 20_000 }).toContain('The app says: The counter is at 1.');
    await saveScreenshot(page, 'app');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('keeps a hostile app away from the console, its token and the tools kept from apps', async () => {
    await call('show_hostile');
    await expect.poll(() => page.getByTestId('app-notes').textContent(), { timeout: 20_000 }).toContain('probe:');
    const probe = (await page.getByTestId('app-notes').textContent()) ?? '';
    expect(probe).toContain('origin=null');
    expect(probe).toContain('parent-dom-blocked');
    expect(probe).toContain('storage-blocked');
    expect(probe).toContain('fetch /api/status blocked');
    expect(probe).toContain('fetch /api/tools blocked');
    expect(probe).toContain('secret_tool refused');
    expect(probe).not.toContain(console_.token);
    // The console's refusal of secret_tool (403) shows in the page's console; nothing else may.
    expect(errors.filter((e) => !/Content Security Policy|Failed to fetch|Refused to connect|status of 403/.test(e))).toEqual([]);
  });
});
