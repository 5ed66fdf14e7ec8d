import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { launchChromium, requireChromium, type TestBrowser } from '../helpers/console.js';

/**
 * Issue 22: the client runs wherever `fetch` does. `toolwright/client` is bundled the way an
 * application's bundler would (esbuild, platform browser, nothing external: the package's
 * "browser" condition must lead to code without Node built-ins) and driven in headless
 * Chromium against a toolwright HTTP server: connect, list, call, and a progress notification,
 * in both eras. Needs the built package (dist/, as `npm test` builds it) and Debian's chromium.
 */
const root = new URL('../../', import.meta.url).pathname;
const HAVE_CHROMIUM = requireChromium('the browser client tests');

// What the page runs: the client as a browser application imports it.
const PAGE_SCRIPT = `
import { ToolClient } from 'toolwright/client';
window.runScenario = async (url, era) => {
  const warnings = [];
  const client = await ToolClient.connect({ url }, { era, onWarning: (w) => warnings.push(w), clientInfo: { name: 'browser-page', version: '1.0.0' } });
  try {
    const tools = (await client.listTools()).map((t) => t.name);
    const progress = [];
    const result = await client.callTool('steps', { count: 3 }, { onProgress: (p) => progress.push([p.progress, p.total, p.message]) });
    const echoed = await client.callTool('echo', { text: 'héllo ☃' });
    return { era: client.era, tools, result: result.content, isError: result.isError === true, echoed: echoed.structuredContent, progress, warnings, hasBuffer: typeof Buffer !== 'undefined', hasProcess: typeof process !== 'undefined' };
  } finally {
    await client.close();
  }
};
window.scenarioReady = true;
`;

describe.skipIf(!HAVE_CHROMIUM)('the client in a browser', () => {
  let handle: HttpServerHandle;
  let browser: TestBrowser;
  let bundled: { code: string; inputs: string[] };

  beforeAll(async () => {
    // No `external`: every import must resolve to browser code, or esbuild fails the build.
    const out = await build({
      stdin: { contents: PAGE_SCRIPT, resolveDir: root, sourcefile: 'page.js', loader: 'js' },
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    bundled = { code: out.outputFiles[0].text, inputs: Object.keys(out.metafile.inputs) };

    const server = new ToolServer({ name: 'browser-fixture', version: '3.0.0', logger: createLogger('silent') });
    server.addTool(
      {
        name: 'steps',
        description: 'Counts to count, reporting progress at each step',
        inputSchema: { type: 'object', properties: { count: { type: 'integer', minimum: 1, maximum: 10 } }, required: ['count'] },
        handler: async ({ count }: { count: number }, ctx) => {
          for (let i = 1; i <= count; i++) {
            ctx.progress(i, count, `step ${i}`);
            await new Promise((resolve) => setImmediate(resolve));
          }
          return `counted to ${count}`;
        },
      },
      {
        name: 'echo',
        description: 'Echoes its text as structured output',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        outputSchema: { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'] },
        handler: ({ text }: { text: string }) => ({ structuredContent: { text }, content: [{ type: 'text', text }] }),
      },
    );
    const html = '<!doctype html><meta charset="utf-8"><title>toolwright client</title><script type="module" src="/client.js"></script>';
    // The page comes from the server's own origin (a web app beside its MCP endpoint): the
    // endpoint's Origin check (loopback default: http://127.0.0.1:*) sees the page's origin.
    handle = await serveHttp(server, {
      port: 0,
      routes: {
        '/': (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html),
        '/client.js': (_req, res) => res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(bundled.code),
      },
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await handle?.close();
  });

  it('is bundled from the runtime-neutral core, with no Node built-in in it', () => {
    expect(bundled.inputs).toContain('dist/client-core.js');
    expect(bundled.inputs).not.toContain('dist/client.js');
    expect(bundled.inputs.filter((file) => file.startsWith('node:') || !/\.(c|m)?js(on)?$|^<stdin>$|^page\.js$/.test(file))).toEqual([]);
  });

  for (const era of ['modern', 'legacy'] as const) {
    it(`connects, lists tools, calls one and hears its progress (${era} era)`, async () => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      try {
        const base = new URL(handle.url);
        await page.goto(`${base.origin}/`);
        await page.waitForFunction(() => (window as unknown as { scenarioReady?: boolean }).scenarioReady === true);
        const seen = await page.evaluate(([url, e]) => (window as unknown as { runScenario: (u: string, e: string) => Promise<unknown> }).runScenario(url, e), [
          handle.url,
          era,
        ] as const);
        expect(errors).toEqual([]);
        expect(seen).toEqual({
          era,
          tools: ['steps', 'echo'],
          result: [{ type: 'text', text: 'counted to 3' }],
          isError: false,
          echoed: { text: 'héllo ☃' },
          progress: [
            [1, 3, 'step 1'],
            [2, 3, 'step 2'],
            [3, 3, 'step 3'],
          ],
          warnings: [],
          hasBuffer: false,
          hasProcess: false,
        });
      } finally {
        await page.close();
      }
    });
  }
});
