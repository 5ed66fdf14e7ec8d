import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltCli } from '../helpers/cli-process.js';
import { launchChromium, requireChromium, type TestBrowser } from '../helpers/console.js';
import { auditEnv, tempDir } from '../helpers/temp.js';

/** Issue 35: under `toolwright dev`, the console shows the last reload's error until a reload succeeds. */
const haveChromium = requireChromium();
const tools = (text: string) =>
  `export default [{ name: 'hello', description: 'says hello', inputSchema: { type: 'object' }, handler: async () => ${text} }];\n`;

describe.skipIf(!haveChromium)('the console under toolwright dev', () => {
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(() => browser?.close());

  it('shows a broken edit’s error with its place, and clears it once an edit loads', async () => {
    const dir = tempDir('toolwright-dev-console-');
    writeFileSync(join(dir, 'tools.ts'), tools("'hello'"));
    const dev = startBuiltCli(['dev', '--tools', 'tools.ts', '--port', '0', '--no-open'], { cwd: dir, env: auditEnv() });
    const [, url] = await dev.waitForStderr(/console on (http:\/\/127\.0\.0\.1:\d+\/console\/#token=[A-Za-z0-9_-]+)/);
    await dev.waitForStderr(/toolwright dev: watching/);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(url);
    await expect.poll(() => page.getByTestId('connection-status').textContent(), { timeout: 20_000 }).toMatch(/Connected: toolwright/);
    expect(await page.getByTestId('dev-reload-error').count()).toBe(0);

    writeFileSync(join(dir, 'tools.ts'), tools("'hello"));
    await dev.waitForStderr(/reload failed/);
    await expect.poll(() => page.getByTestId('dev-reload-error').textContent(), { timeout: 20_000 }).toMatch(/tools\.ts:1:\d+: Unterminated string literal/);

    writeFileSync(join(dir, 'tools.ts'), tools("'hello again'"));
    await dev.waitForStderr(/reloaded tools\.ts/);
    await expect.poll(() => page.getByTestId('dev-reload-error').count(), { timeout: 20_000 }).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('keeps what was typed and the shown result when a reload changes the tool list', async () => {
    const greet =
      "{ name: 'greet', description: 'greets', annotations: { readOnlyHint: true }, inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, handler: async ({ name }) => `hello ${name}` }";
    const other = "{ name: 'other', description: 'another tool', inputSchema: { type: 'object' }, handler: async () => 'other' }";
    const dir = tempDir('toolwright-dev-console-');
    writeFileSync(join(dir, 'tools.ts'), `export default [${greet}];\n`);
    const dev = startBuiltCli(['dev', '--tools', 'tools.ts', '--port', '0', '--no-open'], { cwd: dir, env: auditEnv() });
    const [, url] = await dev.waitForStderr(/console on (http:\/\/127\.0\.0\.1:\d+\/console\/#token=[A-Za-z0-9_-]+)/);
    await dev.waitForStderr(/toolwright dev: watching/);
    const page = await browser.newPage();
    await page.goto(url);
    await page.getByRole('link', { name: 'Tools', exact: true }).click();
    await page.getByRole('link', { name: 'greet', exact: true }).click();
    const form = page.getByRole('form', { name: 'Arguments of greet' });
    await form.getByLabel(/^name/).fill('Ada');
    await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 10_000 }).toBe('Ready');
    await form.getByRole('button', { name: 'Call greet' }).click();
    await expect.poll(() => page.getByTestId('call-result').textContent(), { timeout: 20_000 }).toContain('hello Ada');
    await form.getByLabel(/^name/).fill('Grace');

    // The server's list changes (a tool added); greet is listed again, as a new object.
    writeFileSync(join(dir, 'tools.ts'), `export default [${greet}, ${other}];\n`);
    await dev.waitForStderr(/reloaded tools\.ts/);
    await page.getByRole('link', { name: 'other', exact: true }).waitFor({ timeout: 20_000 });
    expect(await form.getByLabel(/^name/).inputValue()).toBe('Grace');
    expect(await page.getByTestId('call-result').textContent()).toContain('hello Ada');
    await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 10_000 }).toBe('Ready');
    await page.close();
  }, 90_000);

  it('asks once and shows nothing beside a server that is not toolwright dev', async () => {
    const serve = startBuiltCli(['serve', '--http', '--port', '0', '--console'], { env: auditEnv() });
    const [, url] = await serve.waitForStderr(/console on (http:\/\/127\.0\.0\.1:\d+\/console\/#token=[A-Za-z0-9_-]+)/);
    const token = new URL(url).hash.slice('#token='.length);
    const state = await fetch(new URL('api/dev/reload', url), { headers: { 'X-Console-Token': token } });
    expect(await state.json()).toEqual({ available: false });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
    await page.goto(url);
    await expect.poll(() => page.getByTestId('connection-status').textContent(), { timeout: 20_000 }).toMatch(/Connected: toolwright/);
    expect(await page.getByTestId('dev-reload-error').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);
});
