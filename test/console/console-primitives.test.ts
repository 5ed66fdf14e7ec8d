import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedConsole, requireChromium, saveScreenshot, seriousAccessibilityViolations, type ConnectedConsole } from '../helpers/console.js';

/** Issue 25: resources, templates and prompts in the console, with the server's completions. */
const haveChromium = requireChromium();
const tools = fileURLToPath(new URL('../fixtures/console/primitive-tools.mjs', import.meta.url));

describe.skipIf(!haveChromium)('resources and prompts in the console', () => {
  let session: ConnectedConsole;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    session = await connectedConsole(tools);
    ({ page, errors } = session);
  }, 60_000);

  afterAll(async () => {
    await session?.close();
  });

  it('reads a resource, and fills a template with completion', async () => {
    await page.getByRole('link', { name: 'Resources' }).click();
    await page.getByRole('button', { name: 'City index' }).click();
    await expect.poll(() => page.getByTestId('resource-read').textContent(), { timeout: 20_000 }).toContain('oslo\nosaka\nparis');
    await page.getByRole('list', { name: 'Resource templates' }).getByRole('button', { name: 'city', exact: true }).click();
    await page.getByTestId('complete-name').fill('os');
    await expect
      .poll(
        () =>
          page
            .getByTestId('suggestions-name')
            .locator('option')
            .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
        { timeout: 10_000 },
      )
      .toEqual(['oslo', 'osaka']);
    await page.getByTestId('complete-name').fill('osaka');
    await page.getByRole('form', { name: 'Fill city' }).getByRole('button', { name: 'Read' }).click();
    await expect.poll(() => page.getByTestId('resource-read').textContent(), { timeout: 20_000 }).toContain('osaka is in Japan');
    await saveScreenshot(page, 'resources');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('gets a prompt with its arguments completed', async () => {
    await page.getByRole('link', { name: 'Prompts' }).click();
    await page.getByRole('button', { name: 'Plan a trip' }).click();
    await page.getByTestId('complete-city').fill('p');
    await expect
      .poll(
        () =>
          page
            .getByTestId('suggestions-city')
            .locator('option')
            .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
        { timeout: 10_000 },
      )
      .toEqual(['paris']);
    await page.getByTestId('complete-city').fill('paris');
    await page.getByRole('button', { name: 'Get the prompt' }).click();
    await expect.poll(() => page.getByTestId('prompt-messages').textContent(), { timeout: 20_000 }).toContain('Plan three days in paris.');
    await saveScreenshot(page, 'prompts');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
