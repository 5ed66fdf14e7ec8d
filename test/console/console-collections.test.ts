import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltCli } from '../helpers/cli-process.js';
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
 * Issue 25, saved calls and collections in a real browser: calls are saved with the SaveCall
 * control (here in the Collections panel's "Add a call": this branch's Tools screen makes no
 * calls yet; the same component is mounted after a call's result), an expectation is edited,
 * the collection runs in the page with a ✓ and a ✗, and `toolwright run-collection` runs the
 * same file from the terminal and fails.
 */
const haveChromium = requireChromium();

describe.skipIf(!haveChromium)('toolwright console: collections', () => {
  let browser: TestBrowser;
  let console_: ConsoleProcess;
  let project: string;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'tw-console-collections-'));
    writeFileSync(join(project, 'package.json'), '{"name":"p","private":true}\n');
    browser = await launchChromium();
    console_ = await startConsoleProcess(['--', process.execPath, builtCli, 'serve'], { cwd: project });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await console_?.stop();
    rmSync(project, { recursive: true, force: true });
  });

  it('saves calls, runs the collection with a pass and a failure, and the CLI fails on the same file', async () => {
    const { page, errors } = await openConsolePage(browser, console_);
    await expect.poll(() => page.getByTestId('connection-status').textContent(), { timeout: 20_000 }).toMatch(/Connected/);
    await page.getByRole('link', { name: 'Collections' }).click();
    await page.getByText('No collections yet').waitFor();

    await page.getByText('Add a call').click();
    await page.getByLabel('Tool').selectOption('calculate');
    // A name that could leave the folder is refused in the page, before any request.
    await page.getByRole('combobox', { name: 'Collection' }).fill('../escape');
    await page.getByRole('button', { name: 'Save call' }).click();
    await expect.poll(() => page.getByTestId('save-call').getByRole('alert').textContent()).toMatch(/^A collection name is 1-64 letters/);
    for (const [label, expression] of [
      ['adds', '2+3'],
      ['wrong', '2+2'],
    ]) {
      await page.getByLabel('Arguments (JSON)').fill(JSON.stringify({ expression }));
      await page.getByRole('combobox', { name: 'Collection' }).fill('smoke');
      await page.getByLabel('Label (optional)').fill(label);
      await page.getByRole('button', { name: 'Save call' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Saved as "${label}" in smoke.` })
        .waitFor();
    }
    const smoke = page.locator('[data-collection="smoke"]');
    await smoke.locator('[data-call="wrong"]').waitFor();

    // "wrong" expects a result of 5: 2+2 is not.
    await smoke.getByRole('button', { name: 'Edit expectation of wrong' }).click();
    await smoke.getByLabel(/Structured content contains/).fill('{"result": 5}');
    await smoke.getByRole('button', { name: 'Save expectation' }).click();
    await expect.poll(() => smoke.locator('[data-call="wrong"] .call-expect').textContent()).toContain('structured content contains {"result":5}');

    await smoke.getByRole('button', { name: 'Run smoke' }).click();
    await expect.poll(() => smoke.getByTestId('collection-summary').textContent(), { timeout: 20_000 }).toMatch(/^1 passed, 1 failed \(2 calls, \d+ ms\)$/);
    expect(await smoke.locator('[data-call="adds"]').getAttribute('class')).toBe('passed');
    expect(await smoke.locator('[data-call="adds"] .call-mark').textContent()).toBe('✓');
    expect(await smoke.locator('[data-call="wrong"]').getAttribute('class')).toBe('failed');
    expect(await smoke.locator('[data-call="wrong"] .call-mark').textContent()).toBe('✗');
    expect(await smoke.locator('[data-call="wrong"] .call-failures').textContent()).toBe('$.structuredContent.result: expected 5, got 4');
    await saveScreenshot(page, 'collections');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // The page wrote a plain file in the project, which the terminal runs: exit 3, the failure shown.
    const file = JSON.parse(readFileSync(join(project, '.toolwright', 'collections', 'smoke.json'), 'utf8'));
    expect(file.calls).toEqual([
      { id: 'adds', name: 'adds', tool: 'calculate', arguments: { expression: '2+3' } },
      { id: 'wrong', name: 'wrong', tool: 'calculate', arguments: { expression: '2+2' }, expect: { notError: true, structuredContent: { result: 5 } } },
    ]);
    const cli = startBuiltCli(['run-collection', 'smoke', '--', process.execPath, builtCli, 'serve'], { cwd: project, env: { NO_COLOR: '1' } });
    expect((await cli.exit).code).toBe(3);
    expect(cli.stdout()).toMatch(/✗ wrong +calculate +\d+ ms +\$\.structuredContent\.result: expected 5, got 4/);

    // Deleting the failing call in the page makes the terminal run pass.
    await smoke.getByRole('button', { name: 'Delete wrong' }).click();
    await expect.poll(() => smoke.locator('[data-call]').count()).toBe(1);
    const again = startBuiltCli(['run-collection', 'smoke', '--', process.execPath, builtCli, 'serve'], { cwd: project, env: { NO_COLOR: '1' } });
    expect((await again.exit).code).toBe(0);
    expect(errors).toEqual([]);
  }, 60_000);
});

/**
 * Issue 30: the console started in a folder that is not a project saved its collections in the
 * per-user state folder while the page said .toolwright/collections/, and run-collection did not
 * find them; and Run called destructive tools without asking.
 */
const collectionTools = fileURLToPath(new URL('../fixtures/cli/collection-tools.mjs', import.meta.url));

describe.skipIf(!haveChromium)('toolwright console: where collections live, and destructive runs (issue 30)', () => {
  let browser: TestBrowser;
  let console_: ConsoleProcess;
  let folder: string;
  let state: string;
  const env = () => ({ XDG_STATE_HOME: state, NO_COLOR: '1' });
  const called = () => (existsSync(join(folder, 'called.log')) ? readFileSync(join(folder, 'called.log'), 'utf8').split('\n').filter(Boolean) : []);

  beforeAll(async () => {
    // No package.json, .git or config: the folder a new user tries the console in.
    folder = realpathSync(mkdtempSync(join(tmpdir(), 'tw-console-loose-')));
    state = mkdtempSync(join(tmpdir(), 'tw-console-state-'));
    browser = await launchChromium();
    console_ = await startConsoleProcess(['--', process.execPath, builtCli, 'serve', '--tools', collectionTools], { cwd: folder, env: env() });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await console_?.stop();
    for (const dir of [folder, state]) rmSync(dir, { recursive: true, force: true });
  });

  it('saves where the page says, and run-collection in the same folder finds it', async () => {
    const { page, errors } = await openConsolePage(browser, console_);
    await expect.poll(() => page.getByTestId('connection-status').textContent(), { timeout: 20_000 }).toMatch(/Connected/);
    await page.getByRole('link', { name: 'Collections' }).click();
    await expect.poll(() => page.getByTestId('collections-dir').textContent()).toBe(join(folder, '.toolwright', 'collections'));

    await page.getByText('Add a call').click();
    for (const [tool, label, args] of [
      ['count', 'counts', '{}'],
      ['wipe', 'wipes', '{"everything": true}'],
    ]) {
      await page.getByLabel('Tool').selectOption(tool);
      await page.getByLabel('Arguments (JSON)').fill(args);
      await page.getByRole('combobox', { name: 'Collection' }).fill('smoke');
      await page.getByLabel('Label (optional)').fill(label);
      await page.getByRole('button', { name: 'Save call' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Saved as "${label}" in smoke.` })
        .waitFor();
    }
    expect(existsSync(join(folder, '.toolwright', 'collections', 'smoke.json'))).toBe(true);
    expect(readdirSync(state)).toEqual([]);

    const cli = startBuiltCli(['run-collection', 'smoke', '--yes', '--', process.execPath, builtCli, 'serve', '--tools', collectionTools], {
      cwd: folder,
      env: env(),
    });
    expect((await cli.exit).code).toBe(0);
    expect(cli.stdout()).toMatch(/smoke: 2 passed, 0 failed/);
    expect(called()).toEqual(['count', 'wipe']);
    expect(errors).toEqual([]);
    // The next test opens a page of its own; an idle one left open costs Chromium ~0.1 core.
    await page.context().close();
  }, 60_000);

  it('asks before a run with calls that may destroy data, listing them; Cancel runs nothing', async () => {
    rmSync(join(folder, 'called.log'), { force: true });
    const { page, errors } = await openConsolePage(browser, console_);
    await page.getByRole('link', { name: 'Collections' }).click();
    const smoke = page.locator('[data-collection="smoke"]');
    await smoke.getByRole('button', { name: 'Run smoke' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run smoke?' });
    await dialog.waitFor({ timeout: 20_000 });
    // wipe is not read-only and does not say it is harmless; count is read-only and not listed.
    expect(await dialog.getByTestId('confirm-calls').locator('li').allTextContents()).toEqual(['wipes wipe {"everything":true}']);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await saveScreenshot(page, 'collections-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await smoke.getByTestId('collection-summary').count()).toBe(0);
    expect(called()).toEqual([]);

    await smoke.getByRole('button', { name: 'Run smoke' }).click();
    await page.getByRole('dialog', { name: 'Run smoke?' }).getByRole('button', { name: 'Confirm and run' }).click();
    await expect.poll(() => smoke.getByTestId('collection-summary').textContent(), { timeout: 20_000 }).toMatch(/^2 passed, 0 failed/);
    expect(called()).toEqual(['count', 'wipe']);
    expect(errors).toEqual([]);
  }, 60_000);
});
