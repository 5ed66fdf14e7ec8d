import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, requireChromium, startConsoleProcess, type ConsoleProcess, type TestBrowser } from '../helpers/console.js';

/**
 * Issue 25, CVE-2025-49596 as it happened to the MCP Inspector: a web page of another origin,
 * open in the same browser, tells the local console to start a command. Every way a page can
 * send a request (fetch in no-cors mode, fetch with the console's header, a form post, a
 * beacon) is tried with a real Chromium; the command would create a marker file.
 */
const haveChromium = requireChromium();

describe.skipIf(!haveChromium)('a page from another origin against the console', () => {
  let browser: TestBrowser;
  let console_: ConsoleProcess;
  let evil: Server;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tw-console-attack-'));
    browser = await launchChromium();
    console_ = await startConsoleProcess([]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await console_?.stop();
    await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('cannot make the console start a command or call anything', async () => {
    const marker = join(dir, 'pwned');
    const payload = JSON.stringify({ command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`] });
    const target = `${console_.origin}/api/connect`;
    const page = `<!doctype html><meta charset="utf-8"><title>evil</title>
<form id="f" method="POST" action="${target}" enctype="text/plain" target="sink"><input name='${payload.slice(0, -1)},"x":"' value='"}'></form>
<iframe name="sink"></iframe>
<script>
window.attempts = (async () => {
  const seen = [];
  const body = ${JSON.stringify(payload)};
  for (const init of [
    { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body },
    { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Console-Token': 'guessed' }, body },
    { method: 'POST', mode: 'no-cors', credentials: 'include', body },
  ]) {
    try { const r = await fetch(${JSON.stringify(target)}, init); seen.push('answered ' + r.type + ' ' + r.status); }
    catch (e) { seen.push('failed ' + e.name); }
  }
  try { seen.push('status read: ' + (await (await fetch(${JSON.stringify(`${console_.origin}/api/status`)})).text())); } catch (e) { seen.push('status failed ' + e.name); }
  navigator.sendBeacon(${JSON.stringify(target)}, new Blob([body], { type: 'text/plain' }));
  document.getElementById('f').submit();
  return seen;
})();
</script>`;
    evil = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(page));
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const tab = await browser.newPage();
    await tab.goto(`http://127.0.0.1:${(evil.address() as { port: number }).port}/`);
    const seen = await tab.evaluate(() => (window as unknown as { attempts: Promise<string[]> }).attempts);
    // No answer was readable: opaque (no-cors) or a network error (failed preflight, CORS).
    expect(seen.filter((s) => s.startsWith('status read'))).toEqual([]);
    expect(seen.some((s) => /answered cors 200/.test(s))).toBe(false);
    await tab.waitForLoadState('networkidle');
    // The console never connected and the command never ran.
    const status = await fetch(`${console_.origin}/api/status`, { headers: { 'X-Console-Token': console_.token } });
    expect(await status.json()).toMatchObject({ connected: false });
    expect(existsSync(marker)).toBe(false);
    expect(console_.stderr()).not.toContain('pwned');
  });
});
