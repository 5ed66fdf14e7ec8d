import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gateway } from '../../src/gateway/index.js';
import { ToolServer } from '../../src/server/server.js';
import { defineTool } from '../../src/server/tool.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import {
  launchChromium,
  openConsolePage,
  requireChromium,
  seriousAccessibilityViolations,
  startConsoleProcess,
  type ConsoleProcess,
  type TestBrowser,
} from '../helpers/console.js';
import { memoryLogger } from '../helpers/wire.js';

/**
 * Issue 32: a gateway's upstream health in the console, read through its client from the
 * gateway's health resource: `GET api/upstreams`, and the Upstreams screen (shown only beside a
 * gateway) with each upstream's state and last error.
 */
const haveChromium = requireChromium('the Upstreams screen');

const quiet = () => new ToolServer({ audit: false, tasks: false, logger: memoryLogger().logger });
const gatewayServer = quiet();
const gateway = new Gateway(gatewayServer);
let gatewayHttp: HttpServerHandle;
let console_: ConsoleProcess;

beforeAll(async () => {
  const upstream = quiet();
  upstream.addTool(defineTool({ name: 'add', description: 'adds', inputSchema: { type: 'object' }, handler: () => '3' }));
  gateway.add('calc', { server: upstream });
  gateway.add('broken', { command: process.execPath, args: ['-e', 'process.exit(3)'] });
  gateway.serveHealth();
  await gateway.started(5_000);
  gatewayHttp = await serveHttp(gatewayServer, { port: 0 });
  console_ = await startConsoleProcess([gatewayHttp.url]);
}, 60_000);
afterAll(async () => {
  await console_?.stop();
  await gatewayHttp?.close();
  await gateway.close();
});

const get = (c: ConsoleProcess, path: string) => fetch(`${c.origin}/api/${path}`, { headers: { 'X-Console-Token': c.token } });

describe("a gateway's upstreams in the console", () => {
  it('GET api/upstreams answers each upstream with its state, counts and last error', async () => {
    await expect
      .poll(
        async () =>
          ((await (await get(console_, 'upstreams')).json()) as { upstreams?: Array<{ name: string; lastError?: string }> }).upstreams?.find(
            (u) => u.name === 'broken',
          )?.lastError,
        {
          timeout: 20_000,
        },
      )
      .toMatch(/exited with code 3/);
    const answer = (await (await get(console_, 'upstreams')).json()) as { gateway: boolean; upstreams: Array<Record<string, unknown>> };
    expect(answer.gateway).toBe(true);
    expect(answer.upstreams.find((u) => u.name === 'calc')).toMatchObject({ state: 'up', kind: 'server', tools: 1 });
  });

  it('beside a server that is no gateway, answers gateway: false', async () => {
    const plain = quiet();
    plain.addTool(defineTool({ name: 'x', description: 'x', inputSchema: { type: 'object' }, handler: () => 'x' }));
    const http = await serveHttp(plain, { port: 0 });
    const other = await startConsoleProcess([http.url]);
    try {
      await expect.poll(async () => (await get(other, 'upstreams')).status, { timeout: 20_000 }).toBe(200);
      expect(await (await get(other, 'upstreams')).json()).toEqual({ gateway: false, upstreams: [] });
    } finally {
      await other.stop();
      await http.close();
    }
  });
});

describe.skipIf(!haveChromium)('the Upstreams screen', () => {
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('lists each upstream, the dead one unreachable with its error', async () => {
    const { page, errors } = await openConsolePage(browser, console_);
    await page.getByRole('link', { name: 'Upstreams' }).click({ timeout: 20_000 });
    const rows = page.getByTestId('upstreams-row');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(2);
    await expect.poll(() => rows.filter({ hasText: 'calc' }).textContent(), { timeout: 10_000 }).toMatch(/connected.*1 tool/);
    expect(await rows.filter({ hasText: 'broken' }).textContent()).toMatch(/exited with code 3/);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
