import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedConsole, requireChromium, saveScreenshot, seriousAccessibilityViolations, type ConnectedConsole } from '../helpers/console.js';

/**
 * Issue 25, the Tools screen in a real browser: search, badges, descriptions as text, a form
 * generated from the input schema and checked with the server's own messages, raw JSON, the
 * confirmation of a destructive call, and live list changes.
 */
const haveChromium = requireChromium();
const tools = fileURLToPath(new URL('../fixtures/console/form-tools.mjs', import.meta.url));

describe.skipIf(!haveChromium)('the Tools screen', () => {
  let session: ConnectedConsole;
  let page: Page;
  let errors: string[];
  let project: string;

  beforeAll(async () => {
    // A project of its own: saved calls go to its .toolwright/collections/.
    project = mkdtempSync(join(tmpdir(), 'tw-console-tools-'));
    writeFileSync(join(project, 'package.json'), '{"name":"console-tools-test","private":true}\n');
    session = await connectedConsole(tools, { cwd: project });
    ({ page, errors } = session);
    await page.getByRole('link', { name: 'Tools', exact: true }).click();
    await page.getByRole('list', { name: 'Tools' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await session?.close();
    rmSync(project, { recursive: true, force: true });
  });

  it('lists the tools with their annotations, and searches them', async () => {
    const list = page.getByRole('list', { name: 'Tools' });
    await expect.poll(() => list.locator('li').count()).toBe(3);
    const setLevel = list.locator('li', { hasText: 'Set the level' });
    expect(await setLevel.locator('.badge').allTextContents()).toEqual(['destructive (default)', 'open-world (default)']);
    expect(await list.locator('li', { hasText: 'markup_description' }).locator('.badge').allTextContents()).toEqual(['read-only', 'open-world (default)']);
    await page.getByLabel('Search tools').fill('dial');
    await expect.poll(() => list.locator('li').count()).toBe(1);
    await page.getByLabel('Search tools').fill('');
  });

  it('shows a description full of markup as text: nothing runs, no element is made', async () => {
    await page.getByRole('link', { name: /markup_description/ }).click();
    const description = page.locator('.tool-description');
    expect(await description.textContent()).toContain('<script>window.__pwned=2</script><b>bold?</b>');
    expect(await page.locator('img[src="x"], .tool-description b, .tool-description script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it('fills a generated form, shows the server’s message beside a mistake, and calls once it is fixed and confirmed', async () => {
    await page.getByRole('link', { name: /Set the level/ }).click();
    const form = page.getByRole('form', { name: 'Arguments of set_level' });
    await form.waitFor();
    // Required markers and the default of the enum.
    expect(await form.getByLabel(/Which dial/).getAttribute('aria-required')).toBe('true');
    expect(await form.getByLabel('mode').inputValue()).not.toBe('');
    await form.getByLabel(/^name/).fill('volume');
    await form.getByLabel(/^level/).fill('11');
    const problem = form.getByTestId('field-problem');
    await expect.poll(() => problem.textContent(), { timeout: 10_000 }).toBe('must be <= 10');
    expect(await form.getByLabel(/^level/).getAttribute('aria-invalid')).toBe('true');
    expect(await form.getByRole('button', { name: 'Call set_level' }).isDisabled()).toBe(true);
    await saveScreenshot(page, 'tool-form');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await form.getByLabel(/^level/).fill('7');
    await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 10_000 }).toBe('Ready');
    expect(await problem.count()).toBe(0);
    await form.getByRole('button', { name: 'Call set_level' }).click();
    // Not read-only and not said to be harmless: the final arguments are shown for confirmation.
    const dialog = page.getByRole('dialog', { name: 'Call set_level?' });
    await dialog.waitFor();
    expect(JSON.parse((await dialog.getByTestId('confirm-arguments').textContent()) ?? '')).toEqual({ name: 'volume', level: 7, mode: 'slow' });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByTestId('call-runner').count()).toBe(0);

    await form.getByRole('button', { name: 'Call set_level' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm and call' }).click();
    await expect.poll(() => page.getByTestId('call-result').textContent(), { timeout: 20_000 }).toContain('volume set to 7 (slow)');

    // Saved into a collection of the project, with its arguments.
    const save = page.getByRole('form', { name: 'Save this call of set_level' });
    await save.getByLabel('Collection').fill('dials');
    await save.getByLabel('Label (optional)').fill('volume to 7');
    await save.getByRole('button', { name: 'Save call' }).click();
    await save.getByRole('status').waitFor({ timeout: 10_000 });
    const saved = JSON.parse(readFileSync(join(project, '.toolwright', 'collections', 'dials.json'), 'utf8')) as { calls: Array<Record<string, unknown>> };
    expect(saved.calls).toMatchObject([{ name: 'volume to 7', tool: 'set_level', arguments: { name: 'volume', level: 7, mode: 'slow' } }]);
  });

  it('edits the arguments as JSON and back, without losing them', async () => {
    const form = page.getByRole('form', { name: 'Arguments of set_level' });
    await form.getByRole('button', { name: 'Edit as JSON' }).click();
    const json = form.getByLabel('Arguments (JSON)');
    expect(JSON.parse(await json.inputValue())).toEqual({ name: 'volume', level: 7, mode: 'slow' });
    await json.fill('{"name": "bass", "level": 3, "mode": "fast", "tags": ["a", "b"]}');
    await form.getByRole('button', { name: 'Back to the form' }).click();
    expect(await form.getByLabel(/^level/).inputValue()).toBe('3');
    expect(await form.getByLabel(/^name/).inputValue()).toBe('bass');
    expect(await form.locator('.field-array li').count()).toBe(2);
  });

  it('shows a tool added at run time without a reload', async () => {
    await page.getByRole('link', { name: /add_tool/ }).click();
    await page.getByRole('button', { name: 'Call add_tool' }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Tools' }).textContent(), { timeout: 20_000 }).toContain('added_tool');
    expect(errors).toEqual([]);
  });
});
