import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import {
  launchChromium,
  openConsolePage,
  requireChromium,
  saveScreenshot,
  seriousAccessibilityViolations,
  startConsoleProcess,
  type TestBrowser,
} from '../helpers/console.js';
import { tempDir } from '../helpers/temp.js';

/**
 * Issue 25: the operator panels of `toolwright serve --http --console`, in Chromium, over a real
 * server's SQLite audit trail, rate limiter and task store; and their absence standalone.
 */
const haveChromium = requireChromium();

const SECRET = 'hunter2-never-shown-in-the-console';

/** Tools of the served config: `hold` runs until `release` is called (a running task without timing). */
const TOOLS = `
let release;
const held = new Promise((resolve) => { release = resolve; });
export default [
  { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, handler: ({ text }) => String(text) },
  {
    name: 'login',
    description: 'Logs in.',
    inputSchema: { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string' } }, required: ['user'] },
    handler: ({ user }) => { if (user === 'mallory') throw new Error('no such user'); return 'hello ' + user; },
  },
  { name: 'hold', description: 'Runs until released.', inputSchema: { type: 'object' }, handler: async () => { await held; return 'released'; } },
  { name: 'release', description: 'Releases hold.', inputSchema: { type: 'object' }, handler: () => { release(); return 'ok'; } },
];
`;

async function openPanel(page: Page, name: string): Promise<void> {
  await page.getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor({ timeout: 20_000 });
}

describe.skipIf(!haveChromium)('the operator panels in a browser', () => {
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(() => browser?.close());

  it('list the audit trail with filters and charts, the running task and the rate-limit use of serve --console', async () => {
    const dir = tempDir('tw-console-operator-');
    writeFileSync(join(dir, 'tools.mjs'), TOOLS);
    writeFileSync(
      join(dir, 'toolwright.config.json'),
      JSON.stringify({
        tools: ['./tools.mjs'],
        toolsets: {},
        server: {
          audit: { sqlite: join(dir, 'audit.db') },
          tasks: { store: join(dir, 'tasks.db'), tools: { hold: 'always' } },
          limits: { rateLimit: { perPrincipal: { points: 1000, durationSeconds: 3600 }, tools: { echo: { points: 40, durationSeconds: 3600 } } } },
        },
      }),
    );
    const serve = startBuiltCli(['serve', '--http', '--port', '0', '--console', '--config', 'toolwright.config.json'], { cwd: dir });
    const [, url] = await serve.waitForStderr(/console on (http:\/\/127\.0\.0\.1:\d+\/console\/#token=[A-Za-z0-9_-]+)/);
    const origin = new URL(url).origin;

    const client = await ToolClient.connect({ url: `${origin}/mcp` });
    const texts = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
    for (const text of texts) await client.callTool('echo', { text });
    await client.callTool('login', { user: 'alice', password: SECRET });
    expect((await client.callTool('login', { user: 'mallory', password: SECRET })).isError).toBe(true);
    let taskId = '';
    const held = client.callTool('hold', {}, { task: { onTask: (task) => void (taskId = task.taskId) } });
    // Should the test fail before the release, the server's end must not be an unhandled rejection.
    held.catch(() => {});
    await expect.poll(() => taskId, { timeout: 20_000 }).not.toBe('');

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(url);

    // Audit: every call, newest first; filters change the table.
    await openPanel(page, 'Audit');
    const rows = page.getByTestId('audit-row');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(11);
    const tools = async () => (await page.locator('[data-testid="audit-row"] td:nth-child(2) code').allTextContents()).join(',');
    expect(await tools()).toBe(`login,login,${'echo,'.repeat(8)}echo`);
    // The redacted argument is shown redacted, as text.
    const mallory = rows.first();
    await mallory.getByText('View').click();
    const args = await mallory.getByTestId('audit-arguments').textContent();
    expect(args).toContain('"user": "mallory"');
    expect(args).toContain('[REDACTED]');
    expect(await page.content()).not.toContain(SECRET);
    // Charts: one bar group per bucket (24), a latency row per tool called.
    expect(await page.locator('[data-testid="calls-chart"] g.bucket').count()).toBe(24);
    expect(await page.locator('[data-testid="calls-chart"] rect.bar.errors').count()).toBe(1);
    expect(await page.locator('[data-testid="latency-chart"] g.latency').count()).toBe(2);
    expect(await page.getByTestId('calls-chart').getAttribute('aria-label')).toMatch(/11 calls and 1 errors/);
    // One clock for the chart and the table beside it (issue 30: the chart said 14:05, the table 2:05:33 PM).
    // The last two ticks are the time axis' ends (the first ones are the count axis).
    const ticks = (await page.locator('[data-testid="calls-chart"] text.tick').allTextContents()).slice(-2);
    for (const tick of ticks) expect(tick).toMatch(/^\d\d:\d\d$/);
    const rowTime = (await rows.first().locator('time').textContent()) ?? '';
    expect(rowTime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(rowTime).not.toMatch(/AM|PM/);
    await saveScreenshot(page, 'audit');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // Pages of 10, then the older page: the oldest call last, none twice.
    const echoed = async () => (await page.getByTestId('audit-arguments').allTextContents()).map((text) => JSON.parse(text).text ?? JSON.parse(text).user);
    await page.getByLabel('Per page', { exact: true }).selectOption('10');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(10);
    await page.getByRole('button', { name: 'Older records' }).click();
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(11);
    expect(await echoed()).toEqual(['mallory', 'alice', ...texts.slice().reverse()]);
    expect(await page.getByRole('button', { name: 'Older records' }).count()).toBe(0);

    await page.getByLabel('Tool', { exact: true }).fill('echo');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(tools, { timeout: 20_000 }).toBe(`${'echo,'.repeat(8)}echo`);
    await page.getByLabel('Tool', { exact: true }).fill('');
    await page.getByLabel('Outcome', { exact: true }).selectOption('error');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(tools, { timeout: 20_000 }).toBe('login');
    expect(await page.getByTestId('audit-outcome').textContent()).toMatch(/error/);
    // A date the trail refuses is said, not thrown.
    await page.getByLabel('Outcome', { exact: true }).selectOption('any');
    await page.getByLabel('From', { exact: true }).fill('2030-01-02T00:00:00');
    await page.getByLabel('To', { exact: true }).fill('2030-01-01T00:00:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 20_000 }).toMatch(/since is after until|since must be before until/);

    // Tasks: the held call runs until released.
    await openPanel(page, 'Running tasks');
    await expect.poll(() => page.getByTestId('task-row').count(), { timeout: 20_000 }).toBe(1);
    const task = await page.getByTestId('task-row').textContent();
    expect(task).toContain(taskId);
    expect(task).toContain('hold');
    await saveScreenshot(page, 'tasks');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // Limits: the anonymous callers' bucket and echo's own rule, as counted.
    await openPanel(page, 'Rate limits');
    await expect.poll(() => page.getByTestId('limits-row').count(), { timeout: 20_000 }).toBeGreaterThan(0);
    const limits = (await page.getByTestId('limits-row').allTextContents()).join('\n');
    expect(limits).toMatch(/tools\.echo\s*echo\s*9 of 40 per 3600 s/);
    expect(limits).toMatch(/perPrincipal\s*anonymous callers\s*\d+ of 1000 per 3600 s/);
    await saveScreenshot(page, 'limits');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await client.callTool('release', {});
    expect((await held).content).toEqual([{ type: 'text', text: 'released' }]);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await openPanel(page, 'Running tasks');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => page.getByTestId('tasks-empty').count(), { timeout: 20_000 }).toBe(1);

    expect(errors).toEqual([]);
    await client.close();
    await page.close();
  }, 120_000);

  it('are absent from a standalone toolwright console (it has no operator data)', async () => {
    const console_ = await startConsoleProcess([]);
    try {
      const { page, errors } = await openConsolePage(browser, console_);
      // Once the page has its answer to GET operator, the navigation is final.
      const asked = page.waitForResponse((res) => res.url().endsWith('/api/operator'), { timeout: 20_000 });
      await page.reload();
      await asked;
      await page.getByRole('link', { name: 'Connection' }).waitFor({ timeout: 20_000 });
      const answer = await fetch(`${console_.origin}/api/operator`, { headers: { 'X-Console-Token': console_.token } });
      expect(await answer.json()).toEqual({ available: false, audit: false, tasks: false, limits: false });
      expect(await page.getByRole('navigation', { name: 'Screens' }).textContent()).not.toMatch(/Audit|Running tasks|Rate limits/);
      const refused = await fetch(`${console_.origin}/api/audit/records`, { headers: { 'X-Console-Token': console_.token } });
      expect(refused.status).toBe(404);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await console_.stop();
    }
  }, 60_000);
});
