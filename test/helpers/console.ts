import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { expect, it } from 'vitest';

/**
 * The web console as its users get it: the built CLI (`node dist/cli/main.js console …`) in a
 * child process, and Debian's Chromium driven by playwright-core (browser downloads are not
 * available here). Needs `npm run build` (npm test runs it) and `apt-get install chromium`.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
export const builtCli = join(root, 'dist', 'cli', 'main.js');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/**
 * Call at the top of a console e2e file: says loudly when the browser tests skip, and fails
 * under CI=true, where .ci/run installs Chromium.
 */
export function requireChromium(what = "the console's browser tests"): boolean {
  if (!HAVE_CHROMIUM)
    console.warn(`\n*** SKIPPED: ${what} need Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH); they fail under CI=true ***\n`);
  it(`Chromium is installed where CI runs the tests (${what} do not skip there)`, () => {
    if (process.env.CI === 'true') expect(HAVE_CHROMIUM, `Chromium must be installed under CI (apt-get install chromium), looked for ${CHROMIUM}`).toBe(true);
  });
  return HAVE_CHROMIUM;
}

/**
 * A test's browser: pages on the worker's one Chromium, each in a browser context of its own
 * (own cookies, storage and cache), as `Browser.newPage` makes them. `close()` closes this
 * test's contexts, not the browser.
 */
export interface TestBrowser {
  newPage(options?: BrowserContextOptions): Promise<Page>;
  close(): Promise<void>;
}

let worker: Promise<Browser> | undefined;

/**
 * The test worker's Chromium, launched on first use and kept for the files the worker runs
 * after (vitest.config.ts: isolate false), instead of one launch per file: a launch cost ~1.3 s
 * of CPU. Playwright ends it when the worker exits; one that crashed is launched again.
 */
function workerChromium(): Promise<Browser> {
  if (!worker) {
    const launched = chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    worker = launched;
    const forget = () => {
      if (worker === launched) worker = undefined;
    };
    launched.then((browser) => browser.on('disconnected', forget), forget);
  }
  return worker;
}

export async function launchChromium(): Promise<TestBrowser> {
  const browser = await workerChromium();
  const contexts = new Set<BrowserContext>();
  return {
    async newPage(options) {
      const context = await browser.newContext(options);
      contexts.add(context);
      return context.newPage();
    },
    async close() {
      await Promise.all([...contexts].map((context) => context.close().catch(() => undefined)));
      contexts.clear();
    },
  };
}

export interface ConsoleProcess {
  child: ChildProcessWithoutNullStreams;
  /** The first line the console printed: its page with the token in the fragment. */
  url: string;
  origin: string;
  port: number;
  token: string;
  stderr(): string;
  /** SIGTERM (the console closes its connection and stdio server), SIGKILL if it lingers. */
  stop(): Promise<void>;
}

/**
 * Starts `toolwright console --no-open <args…>` and waits for the URL line. `args` may end with
 * `--` and a stdio server's command line, as on the command line.
 */
export async function startConsoleProcess(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<ConsoleProcess> {
  const split = args.indexOf('--');
  const own = split === -1 ? args : args.slice(0, split);
  const rest = split === -1 ? [] : args.slice(split);
  const child = spawn(process.execPath, [builtCli, 'console', '--no-open', ...own, ...rest], {
    cwd: options.cwd ?? root,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = once(child, 'exit');
  const line = await new Promise<string>((resolve, reject) => {
    const onData = (d: string) => {
      stdout += d;
      const nl = stdout.indexOf('\n');
      if (nl !== -1) {
        child.stdout.off('data', onData);
        resolve(stdout.slice(0, nl));
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`toolwright console exited (${code}) before printing its URL; stderr:\n${stderr}`)));
  });
  const url = new URL(line);
  const token = /token=([A-Za-z0-9_-]+)/.exec(url.hash)?.[1] ?? '';
  return {
    child,
    url: line,
    origin: url.origin,
    port: Number(url.port),
    token,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A page of the console, with its uncaught errors and console errors collected (a test expects none). */
export async function openConsolePage(browser: TestBrowser, console_: ConsoleProcess, path = ''): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(`${console_.origin}/${path}#token=${console_.token}`);
  return { page, errors };
}

/**
 * Saves a screenshot of the screen under test-results/console/ (always), and under
 * docs/images/console/ (what the README shows) when TOOLWRIGHT_UPDATE_SCREENSHOTS=1.
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  const dirs = [join(root, 'test-results', 'console')];
  if (process.env.TOOLWRIGHT_UPDATE_SCREENSHOTS === '1') dirs.push(join(root, 'docs', 'images', 'console'));
  const image = await page.screenshot();
  for (const dir of dirs) {
    mkdirSync(dir, { recursive: true });
    await import('node:fs/promises').then((fs) => fs.writeFile(join(dir, `${name}.png`), image));
  }
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core on the page as it is now and returns the serious and critical violations (the
 * issue asks for none), each as "rule: what (selectors)". axe is evaluated through the
 * DevTools protocol, which the page's CSP does not govern.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: Document,
            options: unknown,
          ) => Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`);
}

/** A browser on a console connected to `toolwright serve --tools <module>` over stdio. */
export interface ConnectedConsole {
  browser: TestBrowser;
  console: ConsoleProcess;
  page: Page;
  /** The page's uncaught and console errors so far. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * What most console browser tests start with: Chromium, `toolwright console -- toolwright serve
 * --tools <module>` (in `cwd`, with `env`), and a page showing the connection made.
 */
export async function connectedConsole(
  toolsModule: string,
  options: { cwd?: string; env?: Record<string, string>; era?: 'auto' | 'modern' | 'legacy' } = {},
): Promise<ConnectedConsole> {
  const browser = await launchChromium();
  // toolwright serve speaks both eras. With `auto` the console would find the era by a 5 s probe
  // over stdio, which a loaded machine (two workers, Chromium, the server's own start) can exceed:
  // the console then speaks legacy and the modern-only screens (tasks) are missing. The tests name
  // the era they mean; era detection itself is tested in test/client.
  const era = options.era ?? 'modern';
  const console_ = await startConsoleProcess(['--era', era, '--', process.execPath, builtCli, 'serve', '--tools', toolsModule], options);
  const { page, errors } = await openConsolePage(browser, console_);
  await page.getByText(/^Connected/).waitFor({ timeout: 20_000 });
  return {
    browser,
    console: console_,
    page,
    errors,
    async close() {
      await browser.close();
      await console_.stop();
    },
  };
}
