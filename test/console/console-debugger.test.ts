import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
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
 * Issue 35, the console as a protocol debugger, in a real browser: the history of a call's
 * request and result (with the equivalent command), a log message after the level selector
 * asked for it, a sampling request from server-everything answered from the page, roots edited
 * and seen by the server, and a server's skills read on the Skills screen.
 */
const haveChromium = requireChromium();
const tools = fileURLToPath(new URL('../fixtures/console/debugger-tools.mjs', import.meta.url));
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

interface Opened {
  console: ConsoleProcess;
  page: Page;
  errors: string[];
}

/** A console on `args` (what follows `toolwright console --no-open`), and a page connected to it. */
async function open(browser: TestBrowser, args: string[], cwd?: string): Promise<Opened> {
  const console_ = await startConsoleProcess(args, cwd ? { cwd } : {});
  const { page, errors } = await openConsolePage(browser, console_);
  await page.getByText(/^Connected/).waitFor({ timeout: 30_000 });
  return { console: console_, page, errors };
}

/**
 * Closes a console's page (its browser context) and stops the console once its last test is
 * done: a page Playwright holds keeps Chromium busy (~0.1 core) while idle, and every later test
 * of the file would pay for it.
 */
async function done(opened: Opened): Promise<void> {
  await opened.page.context().close();
  await opened.console.stop();
}

/** Calls a tool from its screen with these text fields filled, and waits for the result. */
async function callTool(page: Page, origin: string, tool: string, fields: Record<string, string> = {}): Promise<string> {
  await page.goto(`${origin}/#/tools/${tool}`);
  const form = page.getByRole('form', { name: `Arguments of ${tool}` });
  await form.waitFor({ timeout: 20_000 });
  for (const [name, value] of Object.entries(fields)) await form.getByLabel(new RegExp(`^${name}`)).fill(value);
  await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 10_000 }).toBe('Ready');
  await page.getByRole('button', { name: `Call ${tool}` }).click();
  const result = page.getByTestId('call-result');
  await result.waitFor({ timeout: 30_000 });
  return (await result.textContent()) ?? '';
}

describe.skipIf(!haveChromium)('the console as a protocol debugger', () => {
  let browser: TestBrowser;
  const opened: Opened[] = [];
  const keep = (session: Opened): Opened => (opened.push(session), session);
  /**
   * One console (and page) for the tests that do not need a fresh one, opened by the first that
   * asks: each console costs its process, a stdio server and ~1.4 CPU-s of Chromium to open and
   * connect a page. The tests that share one run in file order and assert nothing that the
   * earlier one's calls would change (the history is filtered by method, the logs read newest first).
   */
  const shared = (args: string[]) => {
    let session: Promise<Opened> | undefined;
    return () => (session ??= open(browser, args).then(keep));
  };
  // The era named, not probed: `auto` finds it by a 5 s probe a loaded machine can exceed.
  const modern = shared(['--era', 'modern', '--', process.execPath, builtCli, 'serve', '--tools', tools]);
  const everythingConsole = shared(['--', process.execPath, everything, 'stdio']);

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(opened.map((o) => o.console.stop()));
  }, 90_000);

  it("shows a call's request and result in the history, with the command that repeats it", async () => {
    const { console: c, page, errors } = await modern();
    expect(await callTool(page, c.origin, 'shout', { text: "it's loud" })).toContain("IT'S LOUD");
    await page.goto(`${c.origin}/#/history`);
    await page.getByLabel('Method').fill('tools/call');
    const entries = page.getByTestId('history-entry');
    await expect.poll(() => entries.count(), { timeout: 10_000 }).toBe(2);
    // Newest first: the result, then the request.
    expect(await entries.nth(0).getAttribute('data-kind')).toBe('result');
    expect(await entries.nth(1).getAttribute('data-kind')).toBe('request');
    await entries.nth(1).locator('summary').click();
    expect(JSON.parse((await entries.nth(1).getByTestId('history-json').textContent()) ?? '')).toMatchObject({
      method: 'tools/call',
      params: { name: 'shout', arguments: { text: "it's loud" } },
    });
    // The command names the era the console was started with (without --era it names none: test/console/wire-history.test.ts).
    expect(await entries.nth(1).getByTestId('history-command').textContent()).toBe(
      `toolwright call shout --args '{"text":"it'\\''s loud"}' --era modern -- ${process.execPath} ${builtCli} serve --tools ${tools}`,
    );
    await entries.nth(0).locator('summary').click();
    expect(await entries.nth(0).getByTestId('history-json').textContent()).toContain("IT'S LOUD");
    // The filter by kind narrows it to the result.
    await saveScreenshot(page, 'history');
    await page.getByLabel('Kind').selectOption('result');
    await expect.poll(() => entries.count()).toBe(1);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  }, 90_000);

  it('asks a legacy server for log messages with logging/setLevel, and shows them', async () => {
    const legacy = keep(await open(browser, ['--era', 'legacy', '--', process.execPath, builtCli, 'serve', '--tools', tools]));
    const { console: c, page, errors } = legacy;
    await page.goto(`${c.origin}/#/logs`);
    await page.getByLabel(/Least severe level/).selectOption('info');
    await expect.poll(() => page.getByTestId('log-level-note').textContent(), { timeout: 10_000 }).toContain('Asked with logging/setLevel: info');
    await callTool(page, c.origin, 'shout', { text: 'hello' });
    await page.goto(`${c.origin}/#/logs`);
    await expect.poll(() => page.getByTestId('log-entry').first().textContent(), { timeout: 10_000 }).toContain('shouting hello');
    expect(await page.getByTestId('log-entry').first().textContent()).toContain('shouter');
    await saveScreenshot(page, 'logs');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.goto(`${c.origin}/#/history`);
    await page.getByLabel('Method').fill('logging/setLevel');
    await expect.poll(() => page.getByTestId('history-entry').count(), { timeout: 10_000 }).toBe(2);
    expect(errors).toEqual([]);
    await done(legacy);
  }, 90_000);

  it('carries the level in _meta for a modern server, whose log messages come with the call', async () => {
    const session = await modern();
    const { console: c, page, errors } = session;
    await page.goto(`${c.origin}/#/logs`);
    await page.getByLabel(/Least severe level/).selectOption('debug');
    await expect.poll(() => page.getByTestId('log-level-note').textContent(), { timeout: 10_000 }).toContain('_meta');
    await callTool(page, c.origin, 'shout', { text: 'modern' });
    await page.goto(`${c.origin}/#/logs`);
    await expect.poll(() => page.getByTestId('log-entry').first().textContent(), { timeout: 10_000 }).toContain('shouting modern');
    expect(errors).toEqual([]);
    await done(session);
  }, 90_000);

  it("answers server-everything's sampling request from the page, and offers it the roots edited there", async () => {
    const { console: c, page, errors } = await everythingConsole();
    // Sampling: the tool waits for the person's reply, which comes back in its result.
    await page.goto(`${c.origin}/#/tools/trigger-sampling-request`);
    const form = page.getByRole('form', { name: 'Arguments of trigger-sampling-request' });
    await form.waitFor({ timeout: 20_000 });
    await form.getByLabel(/^prompt/).fill('name a colour');
    await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 10_000 }).toBe('Ready');
    await page.getByRole('button', { name: 'Call trigger-sampling-request' }).click();
    const question = page.getByRole('form', { name: 'The server asks for a completion' });
    await question.waitFor({ timeout: 20_000 });
    expect(await question.textContent()).toContain('name a colour');
    await saveScreenshot(page, 'sampling');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await question.getByLabel(/^Reply/).fill('Ultramarine, said the person');
    await question.getByLabel(/^Model/).fill('a-person');
    await question.getByRole('button', { name: 'Approve' }).click();
    const result = page.getByTestId('call-result');
    await result.waitFor({ timeout: 20_000 });
    expect(await result.textContent()).toContain('Ultramarine, said the person');
    expect(await result.textContent()).toContain('a-person');

    // Roots: added on the Roots screen, then listed by the server's own tool.
    const folder = mkdtempSync(join(tmpdir(), 'tw-console-root-'));
    try {
      await page.goto(`${c.origin}/#/roots`);
      const add = page.getByRole('form', { name: 'Add a root' });
      await add.getByLabel(/^Folder/).fill(folder);
      await add.getByLabel(/^Name/).fill('the project');
      await add.getByRole('button', { name: 'Add root' }).click();
      await expect.poll(() => page.getByTestId('roots-note').textContent(), { timeout: 10_000 }).toContain('notifications/roots/list_changed');
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      const listed = async () => callTool(page, c.origin, 'get-roots-list');
      await expect.poll(listed, { timeout: 20_000 }).toContain(pathToFileURL(folder).href);
      expect(await listed()).toContain('the project');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    // The server's roots/list request is in the history, as a request it sent.
    await page.goto(`${c.origin}/#/history`);
    await page.getByLabel('Method').fill('roots/list');
    await page.getByLabel('Direction').selectOption('received');
    await expect.poll(() => page.getByTestId('history-entry').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await page.getByTestId('history-entry').first().textContent()).toContain('server request');
    expect(errors).toEqual([]);
  }, 90_000);

  it("rejects a sampling request: the server hears the user's no", async () => {
    const session = await everythingConsole();
    const { console: c, page } = session;
    await page.goto(`${c.origin}/#/tools/trigger-sampling-request`);
    const form = page.getByRole('form', { name: 'Arguments of trigger-sampling-request' });
    await form.waitFor({ timeout: 20_000 });
    await form.getByLabel(/^prompt/).fill('anything');
    await expect.poll(() => page.getByTestId('form-state').textContent(), { timeout: 10_000 }).toBe('Ready');
    await page.getByRole('button', { name: 'Call trigger-sampling-request' }).click();
    const question = page.getByRole('form', { name: 'The server asks for a completion' });
    await question.getByRole('button', { name: 'Reject' }).click();
    await page.goto(`${c.origin}/#/history`);
    await page.getByLabel('Kind').selectOption('error');
    const error = page.getByTestId('history-entry').first();
    await error.waitFor({ timeout: 20_000 });
    await error.locator('summary').click();
    expect(JSON.parse((await error.getByTestId('history-json').textContent()) ?? '')).toMatchObject({
      error: { code: -1, message: 'User rejected sampling request' },
    });
    await done(session);
  }, 90_000);

  it("lists a server's skills and reads SKILL.md and a file, as text", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tw-console-skills-'));
    try {
      mkdirSync(join(dir, 'skills', 'greeting', 'references'), { recursive: true });
      writeFileSync(
        join(dir, 'skills', 'greeting', 'SKILL.md'),
        '---\nname: greeting\ndescription: Greets people <b>warmly</b>\n---\n# Greeting\n\nSay **hello**. <img src=x onerror="window.pwned=1">\n',
      );
      writeFileSync(join(dir, 'skills', 'greeting', 'references', 'phrases.txt'), 'hello <script>window.pwned=2</script>\n');
      writeFileSync(join(dir, 'toolwright.config.yaml'), 'skills:\n  folder: skills\n');
      const session = keep(await open(browser, ['--', process.execPath, builtCli, 'serve', '--config', 'toolwright.config.yaml'], dir));
      const { page, errors } = session;
      await page.getByRole('link', { name: 'Skills' }).click();
      await page.getByRole('button', { name: 'greeting' }).click();
      const view = page.getByTestId('skill-view');
      await view.waitFor({ timeout: 20_000 });
      expect(await view.textContent()).toContain('Greets people <b>warmly</b>');
      const body = page.getByTestId('skill-file');
      await expect.poll(() => body.locator('h1').textContent()).toBe('Greeting');
      await saveScreenshot(page, 'skills');
      expect(await body.locator('strong').textContent()).toBe('hello');
      expect(await body.locator('img').count()).toBe(0);
      await view.getByRole('button', { name: 'references/phrases.txt' }).click();
      await expect.poll(() => body.textContent(), { timeout: 10_000 }).toBe('hello <script>window.pwned=2</script>\n');
      expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await done(session);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
