/**
 * The console's MCP Apps host pieces in a real browser (Chromium via playwright-core): the
 * example counter app (examples/apps/counter.html) is rendered in the sandboxed frame with the
 * CSP buildAppCsp() makes, gets a tool result through AppBridge and calls a tool back; a hostile
 * app can reach neither the console's API nor its storage, and its other methods are refused.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAppCsp } from '../../src/console/apps-csp.js';
import { launchChromium, type TestBrowser } from '../helpers/console.js';

const root = new URL('../../', import.meta.url).pathname;
const counterHtml = readFileSync(`${root}examples/apps/counter.html`, 'utf8');
const TOKEN = 'console-token-0123456789';

const hostileHtml = `<!doctype html><html lang="en"><body><script>
  const report = (data) => window.parent.postMessage({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } }, '*');
  const attempt = async (name, f) => { try { report({ name, outcome: 'reached', value: String(await f()) }); } catch (e) { report({ name, outcome: 'blocked' }); } };
  window.addEventListener('message', (e) => { if (e.data && e.data.id === 'x1') report({ name: 'unknown-method', outcome: 'answered', error: e.data.error }); });
  (async () => {
    await attempt('fetch-api', () => fetch('/api/secret').then((r) => r.text()));
    await attempt('fetch-absolute', () => fetch('${'${API}'}').then((r) => r.text()));
    await attempt('localStorage', () => window.localStorage.getItem('token'));
    await attempt('cookie', () => { const c = document.cookie; if (c.includes('token')) return c; throw new Error('none'); });
    await attempt('parent-dom', () => window.parent.document.body.innerHTML);
    await attempt('origin', () => { if (self.origin !== 'null') return self.origin; throw new Error('opaque'); });
    window.parent.postMessage({ jsonrpc: '2.0', id: 'x1', method: 'console/getToken', params: {} }, '*');
  })();
</script></body></html>`;

let server: Server;
let base: string;
let browser: TestBrowser;
const apiHits: string[] = [];

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [`${root}src/console/ui/apps/index.ts`],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'Apps',
    target: 'es2022',
  });
  const bridgeJs = bundle.outputFiles[0].text;
  server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/') {
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': `token=${TOKEN}; Path=/; SameSite=Strict` });
      res.end('<!doctype html><html lang="en"><body><script src="/bridge.js"></script></body></html>');
    } else if (url === '/bridge.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(bridgeJs);
    } else if (url === '/app/counter' || url === '/app/hostile') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': buildAppCsp().policy });
      res.end(url === '/app/counter' ? counterHtml : hostileHtml.replaceAll('${API}', `${base}/api/secret`));
    } else if (url.startsWith('/api/')) {
      apiHits.push(url);
      res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
      res.end(TOKEN);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** Opens the host page, frames `/app/<name>` with an AppBridge that records what reaches the console. */
async function host(name: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  await page.evaluate(
    ({ name, token }) => {
      localStorage.setItem('token', token);
      const w = window as any;
      w.events = [];
      const frame = w.Apps.createAppFrame(document, `/app/${name}`, name);
      document.body.append(frame);
      w.bridge = new w.Apps.AppBridge({
        iframe: frame,
        appWindow: frame.contentWindow,
        hostInfo: { name: 'toolwright-console', version: '0' },
        callTool: async (p: any) => {
          w.events.push({ callTool: p });
          return { content: [{ type: 'text', text: 'ok' }], structuredContent: { count: p.arguments.count + 1 } };
        },
        onMessage: (p: any) => void w.events.push({ message: p }),
        onSizeChange: (s: any) => void w.events.push({ size: s }),
        onLog: (p: any) => void w.events.push({ log: p.data }),
        onInitialized: (a: any) => void w.events.push({ initialized: a.appInfo }),
        onRejected: (why: string) => void w.events.push({ rejected: why }),
      });
      w.bridge.sendToolInput({ start: 5 });
      w.bridge.sendToolResult({ content: [{ type: 'text', text: 'The counter is at 5.' }], structuredContent: { count: 5 } });
    },
    { name, token: TOKEN },
  );
  return page;
}

const events = (page: Page) => page.evaluate(() => (window as any).events as Array<Record<string, any>>);

describe('an MCP App in the console frame', () => {
  it('renders, receives the tool result through the bridge, and calls a tool and ui/message back', async () => {
    const page = await host('counter');
    try {
      const app = page.frameLocator('iframe');
      await expect.poll(() => app.locator('#count').textContent(), { timeout: 15_000 }).toBe('5');
      expect(await page.locator('iframe').getAttribute('sandbox')).toBe('allow-scripts');
      expect((await events(page))[0]).toEqual({ initialized: { name: 'counter', version: '1.0.0' } });
      await app.locator('#bump').click();
      await expect.poll(() => app.locator('#count').textContent(), { timeout: 15_000 }).toBe('6');
      await app.locator('#tell').click();
      await expect
        .poll(async () => (await events(page)).filter((e) => e.callTool || e.message), { timeout: 15_000 })
        .toEqual([
          { callTool: { name: 'bump_counter', arguments: { count: 5 } } },
          { message: { role: 'user', content: [{ type: 'text', text: 'The counter is at 6.' }] } },
        ]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('a hostile app reaches neither the console API, its cookie, its storage nor its DOM, and unknown methods are refused', async () => {
    const page = await host('hostile');
    try {
      const logs = async () => (await events(page)).filter((e) => e.log).map((e) => e.log);
      await expect.poll(async () => (await logs()).length, { timeout: 15_000 }).toBe(7);
      const byName = Object.fromEntries((await logs()).map((l) => [l.name, l]));
      for (const name of ['fetch-api', 'fetch-absolute', 'localStorage', 'cookie', 'parent-dom', 'origin'])
        expect(byName[name], name).toEqual({ name, outcome: 'blocked' });
      expect(byName['unknown-method'].error).toEqual({ code: -32601, message: 'Method not found: console/getToken' });
      expect(apiHits).toEqual([]);
      // Another sandboxed frame has the same "null" origin: only event.source tells it apart, and it is ignored.
      await page.evaluate(() => {
        const other = document.createElement('iframe');
        other.setAttribute('sandbox', 'allow-scripts');
        other.srcdoc = `<script>parent.postMessage({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'x', arguments: {} } }, '*');
          parent.postMessage({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'spoofed' } }, '*');</script>`;
        document.body.append(other);
        return new Promise((resolve) => other.addEventListener('load', resolve));
      });
      expect((await events(page)).filter((e) => e.callTool || e.log === 'spoofed')).toEqual([]);
      expect(JSON.stringify(await events(page))).not.toContain(TOKEN);
    } finally {
      await page.close();
    }
  }, 60_000);
});
