import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
 * Issue 25, a call's life in the console, in a real browser: a progress bar that moves (the
 * tool takes each step when the test creates a file, never on a timer), Cancel reaching the
 * tool, the server's question answered in a form, a task's status and result, and a result of
 * every content type rendered safely, with a resource link read and structured content checked.
 */
const haveChromium = requireChromium();
const tools = fileURLToPath(new URL('../fixtures/console/call-tools.mjs', import.meta.url));

describe.skipIf(!haveChromium)('calls in the console', () => {
  let session: ConnectedConsole;
  let console_: ConsoleProcess;
  let page: Page;
  let errors: string[];
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tw-console-calls-'));
    session = await connectedConsole(tools, { env: { CONSOLE_TEST_DIR: dir } });
    ({ console: console_, page, errors } = session);
  }, 60_000);

  afterAll(async () => {
    await session?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = async (tool: string) => {
    await page.goto(`${console_.origin}/#/tools/${tool}`);
    await page.getByRole('form', { name: `Arguments of ${tool}` }).waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 10_000 }).toBe('Ready');
  };

  it('shows a progress bar that moves with each step', async () => {
    await open('steps');
    await page.getByRole('button', { name: 'Call steps' }).click();
    const bar = page.getByTestId('call-progress');
    const value = async () => Number(await bar.getAttribute('value'));
    await expect.poll(value, { timeout: 20_000 }).toBe(1);
    expect(await bar.getAttribute('max')).toBe('3');
    expect(await page.getByTestId('progress-text').textContent()).toBe('step 1 of 3');
    await saveScreenshot(page, 'call-progress');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    writeFileSync(join(dir, 'go-1'), '');
    await expect.poll(value, { timeout: 20_000 }).toBe(2);
    writeFileSync(join(dir, 'go-2'), '');
    await expect.poll(value, { timeout: 20_000 }).toBe(3);
    writeFileSync(join(dir, 'go-3'), '');
    await expect.poll(() => page.getByTestId('call-result').textContent(), { timeout: 20_000 }).toContain('all steps done');
  });

  it('cancels a call, and the tool sees it', async () => {
    await open('wait_forever');
    await page.getByRole('button', { name: 'Call wait_forever' }).click();
    await page.getByTestId('call-progress').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => existsSync(join(dir, 'cancelled')), { timeout: 20_000 }).toBe(true);
    await expect.poll(() => page.getByTestId('call-error').textContent(), { timeout: 20_000 }).toMatch(/^Cancelled: .*cancel/i);
  });

  it("answers the server's question in a form, and declines one", async () => {
    await open('ask_name');
    await page.getByRole('button', { name: 'Call ask_name' }).click();
    const question = page.getByRole('form', { name: 'The server asks' });
    await question.waitFor({ timeout: 20_000 });
    // The server's message is text, not markup.
    expect(await question.locator('.question-message').textContent()).toBe('<b>Who</b> are you?');
    await question.getByLabel(/Your name/).fill('Ada');
    await question.getByLabel('color').selectOption('blue');
    await saveScreenshot(page, 'elicitation');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await question.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => page.getByTestId('call-result').textContent(), { timeout: 20_000 }).toContain('Hello Ada (blue)');

    await page.getByRole('button', { name: 'Call ask_name' }).click();
    await page.getByRole('form', { name: 'The server asks' }).getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => page.getByTestId('call-result').textContent(), { timeout: 20_000 }).toContain('you chose decline');
  });

  it('runs a tool as a task, showing its status, then its result', async () => {
    await open('slow_task');
    await page.getByLabel('Run as a task').check();
    await page.getByRole('button', { name: 'Call slow_task' }).click();
    await expect.poll(() => page.getByTestId('task-status').textContent(), { timeout: 20_000 }).toMatch(/^Task \S+: working/);
    writeFileSync(join(dir, 'task-go'), '');
    await expect.poll(() => page.getByTestId('call-result').textContent(), { timeout: 30_000 }).toContain('task finished');
    expect(await page.getByTestId('task-status').textContent()).toMatch(/completed/);
  });

  it('renders every content type, markup inert, and reads a resource link', async () => {
    await open('rich_result');
    await page.getByRole('button', { name: 'Call rich_result' }).click();
    const result = page.getByTestId('call-result');
    await result.waitFor({ timeout: 20_000 });
    // Markdown rendered, its raw HTML shown as text, the javascript: link left without a target.
    expect(await result.locator('.markdown h1').textContent()).toBe('Report');
    expect(await result.locator('.markdown strong').textContent()).toBe('bold');
    expect(await result.locator('.markdown a').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('rel')]))).toEqual([
      ['a link', 'https://example.com', 'noopener noreferrer'],
    ]);
    expect(await result.textContent()).toContain('<script>window.__pwned=2</script>');
    expect(await page.locator('.result script, .result img[src="x"], [onerror]').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // Image and audio from their data.
    expect(await result.locator('img').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await result.locator('audio').getAttribute('src')).toMatch(/^data:audio\/wav;base64,/);
    // The embedded resource is text.
    expect(await result.getByTestId('resource-contents').first().textContent()).toContain('<i>embedded</i> text');
    // Structured content, checked against the output schema by the console.
    await expect.poll(() => result.getByTestId('output-check').textContent(), { timeout: 10_000 }).toBe('Matches the output schema');
    // A resource link, read on demand.
    await result.getByTestId('resource-link').getByRole('button', { name: 'Read' }).click();
    await expect.poll(() => result.getByTestId('resource-link').textContent(), { timeout: 10_000 }).toContain('Hello from a resource');
    await saveScreenshot(page, 'result-types');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
