import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { launchChromium, requireChromium, type TestBrowser } from '../helpers/console.js';

/**
 * Issue 25: `toolwright serve --http --console` serves the console beside the MCP endpoint on
 * the same listener, for the server's operator; its client reaches the server in process.
 */
const haveChromium = requireChromium();

describe('serve --console', () => {
  it('is refused on a network bind and without --http, before anything listens', async () => {
    const out: string[] = [];
    const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void out.push(t) };
    expect(await runCli(['serve', '--http', '--host', '0.0.0.0', '--port', '0', '--console'], io)).toBe(1);
    expect(out.join('')).toMatch(/loopback binds only/);
    out.length = 0;
    expect(await runCli(['serve', '--stdio', '--console'], io)).toBe(1);
    expect(out.join('')).toMatch(/--console is served over HTTP/);
  });

  describe.skipIf(!haveChromium)('in a browser', () => {
    let browser: TestBrowser;
    beforeAll(async () => {
      browser = await launchChromium();
    }, 60_000);
    afterAll(() => browser?.close());

    it('serves the console at /console/ beside /mcp, connected to the server itself', async () => {
      const serve = startBuiltCli(['serve', '--http', '--port', '0', '--console']);
      const [, url] = await serve.waitForStderr(/console on (http:\/\/127\.0\.0\.1:\d+\/console\/#token=[A-Za-z0-9_-]+)/);
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto(url);
      await expect.poll(() => page.getByTestId('connection-status').textContent(), { timeout: 20_000 }).toMatch(/Connected: toolwright/);
      await page.getByRole('link', { name: 'Tools' }).click();
      await expect.poll(() => page.locator('.panel').textContent(), { timeout: 20_000 }).toContain('calculate');
      // The API lives under the prefix, with the same guard.
      const origin = new URL(url).origin;
      expect((await fetch(`${origin}/console/api/status`)).status).toBe(403);
      expect((await fetch(`${origin}/console/api/status`, { headers: { 'X-Console-Token': new URL(url).hash.slice('#token='.length) } })).status).toBe(200);
      expect(errors).toEqual([]);
      await page.close();
    });
  });
});
