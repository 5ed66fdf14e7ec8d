import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedConsole, requireChromium, type ConnectedConsole } from '../helpers/console.js';

/**
 * Issue 30, the console's first hour in a real browser: an untouched form shows no mistakes, a
 * running call is not "Ready", 1e999 is not a "missing" field, a tool low in a long list brings
 * its form into view, tabs for empty lists are not shown, and a call saved from an error result
 * expects an error.
 */
const haveChromium = requireChromium();
const tools = fileURLToPath(new URL('../fixtures/console/feedback-tools.mjs', import.meta.url));

describe.skipIf(!haveChromium)('the console’s feedback on forms and calls', () => {
  let session: ConnectedConsole;
  let page: Page;
  let errors: string[];
  let folder: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'tw-console-feedback-'));
    session = await connectedConsole(tools, { cwd: folder });
    ({ page, errors } = session);
  }, 60_000);

  afterAll(async () => {
    await session?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const open = async (tool: string) => {
    await page.getByRole('link', { name: 'Tools', exact: true }).click();
    await page.getByRole('link', { name: tool, exact: true }).click();
    const form = page.getByRole('form', { name: `Arguments of ${tool}` });
    await form.waitFor({ timeout: 20_000 });
    return form;
  };

  it('shows no Resources or Prompts tab for a server that declares them but lists none', async () => {
    await page.getByRole('link', { name: 'Tools', exact: true }).waitFor();
    // toolwright serve declares both (with listChanged); this server has neither.
    expect(await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allTextContents()).toEqual([
      'Connection',
      'Tools',
      'History',
      'Log messages',
      'Roots',
      'Collections',
    ]);
  });

  it('shows a form’s problems only once a field is changed or Call is pressed', async () => {
    const form = await open('needs_two');
    const state = page.getByTestId('form-state');
    await expect.poll(() => state.textContent(), { timeout: 10_000 }).toBe('Fields marked * are required');
    expect(await form.getByTestId('field-problem').count()).toBe(0);
    expect(await form.getByRole('button', { name: 'Call needs_two' }).isDisabled()).toBe(false);

    // A field the person changed speaks for itself; the untouched one stays quiet.
    await form.getByLabel(/^name/).fill('x');
    await form.getByLabel(/^name/).fill('');
    await expect.poll(() => form.getByTestId('field-problem').allTextContents(), { timeout: 10_000 }).toEqual(['must NOT have fewer than 1 characters']);
    await form.getByLabel(/^name/).fill('dial');
    await expect.poll(() => form.getByTestId('field-problem').count(), { timeout: 10_000 }).toBe(0);

    // Call shows what is still missing.
    await form.getByRole('button', { name: 'Call needs_two' }).click();
    await expect.poll(() => form.getByTestId('field-problem').allTextContents(), { timeout: 10_000 }).toEqual(['required field is missing']);
    expect(await state.textContent()).toBe('1 problem to fix');
    expect(await page.getByTestId('call-runner').count()).toBe(0);
  });

  it('says a number field holding 1e999 is not a finite number, and calls nothing with it', async () => {
    const form = page.getByRole('form', { name: 'Arguments of needs_two' });
    const count = form.getByLabel(/^count/);
    await count.pressSequentially('1e999');
    await expect.poll(() => form.getByTestId('field-problem').allTextContents(), { timeout: 10_000 }).toEqual(['not a finite number']);
    expect(await count.getAttribute('aria-invalid')).toBe('true');
    expect(await form.getByRole('button', { name: 'Call needs_two' }).isDisabled()).toBe(true);
    await count.fill('3');
    await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 10_000 }).toBe('Ready');
    expect(await form.getByTestId('field-problem').count()).toBe(0);
  });

  it('says the call is running while it runs, not "Ready"', async () => {
    const form = await open('waits');
    await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 10_000 }).toBe('Ready');
    await form.getByRole('button', { name: 'Call waits' }).click();
    await page.getByTestId('call-progress').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('form-state').textContent()).toBe('Calling waits…');
    await page.getByTestId('call-runner').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 20_000 }).toBe('Ready');
  });

  it('cancels a call whose Cancel is pressed before the console has named it', async () => {
    const form = await open('waits');
    await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 10_000 }).toBe('Ready');
    // Hold the call's request back until Cancel is pressed: the page has no call id yet.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/call', async (route) => {
      await held;
      await route.continue();
    });
    try {
      await form.getByRole('button', { name: 'Call waits' }).click();
      const cancel = page.getByTestId('call-runner').getByRole('button', { name: /^Cancel/ });
      await cancel.click();
      expect(await cancel.textContent()).toBe('Cancelling…');
      release();
      await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 10_000 }).toBe('Ready');
    } finally {
      release();
      await page.unroute('**/api/call');
    }
  });

  it('brings the form of a tool chosen low in a long list into view', async () => {
    await page.getByRole('link', { name: 'Tools', exact: true }).click();
    const last = page.getByRole('link', { name: 'tool_40', exact: true });
    await last.scrollIntoViewIfNeeded();
    await last.click();
    const heading = page.getByRole('heading', { level: 2, name: 'tool_40' });
    await heading.waitFor();
    await expect
      .poll(
        () =>
          heading.evaluate((element) => {
            const box = element.getBoundingClientRect();
            return box.top >= 0 && box.bottom <= window.innerHeight;
          }),
        { timeout: 10_000 },
      )
      .toBe(true);
  });

  it('saves a call whose result is an error expecting an error, and the editor offers "An error"', async () => {
    const form = await open('fails');
    await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 10_000 }).toBe('Ready');
    await form.getByRole('button', { name: 'Call fails' }).click();
    const save = page.getByRole('form', { name: 'Save this call of fails' });
    await save.waitFor({ timeout: 20_000 });
    await save.getByLabel('Collection').fill('errors');
    await save.getByRole('button', { name: 'Save call' }).click();
    await save.getByRole('status').waitFor({ timeout: 10_000 });
    const file = JSON.parse(readFileSync(join(folder, '.toolwright', 'collections', 'errors.json'), 'utf8'));
    expect(file.calls).toEqual([{ id: 'fails', tool: 'fails', arguments: {}, expect: { isError: true } }]);

    await page.getByRole('link', { name: 'Collections' }).click();
    const card = page.locator('[data-collection="errors"]');
    expect(await card.locator('[data-call="fails"] .call-expect').textContent()).toBe('expects: an error');
    await card.getByRole('button', { name: 'Run errors' }).click();
    await expect.poll(() => card.getByTestId('collection-summary').textContent(), { timeout: 20_000 }).toMatch(/^1 passed, 0 failed/);

    await card.getByRole('button', { name: 'Edit expectation of fails' }).click();
    const editor = card.getByRole('form', { name: 'Expectation of fails' });
    expect(await editor.getByLabel('An error (isError)').isChecked()).toBe(true);
    // Either outcome: no check on isError at all.
    await editor.getByLabel('Either (not checked)').check();
    await editor.getByRole('button', { name: 'Save expectation' }).click();
    await expect.poll(() => card.locator('[data-call="fails"] .call-expect').textContent()).toBe('expects: anything (no check)');
    expect(errors).toEqual([]);
  });
});
