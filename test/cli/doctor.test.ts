/**
 * `toolwright doctor` as a user runs it (the built CLI in a child process): the steps with
 * their marks and hints, --json for the report, exit 0 when the connection works, 2 otherwise.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltCli } from '../helpers/cli-process.js';
import { freePort } from '../helpers/free-port.js';
import { sharedTempDir } from '../helpers/temp.js';

const tools = fileURLToPath(new URL('../fixtures/cli/tools.mjs', import.meta.url));
const config = sharedTempDir('toolwright-doctor-cli-');
// No tokens of the user running the tests.
const env = { XDG_CONFIG_HOME: config.dir };
afterAll(() => config.remove());

async function doctor(...args: string[]) {
  const cli = startBuiltCli(['doctor', ...args], { env });
  const { code } = await cli.exit;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

describe('toolwright doctor', () => {
  let web: Server;
  let origin: string;
  beforeAll(async () => {
    web = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><body>hello</body></html>'));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => web.close(resolve)));

  it('a closed port: ✗ tcp with its hint, exit 2', async () => {
    const port = await freePort();
    const { code, stdout } = await doctor(`http://127.0.0.1:${port}/mcp`);
    expect(code).toBe(2);
    expect(stdout).toContain('✓ url: http to 127.0.0.1');
    expect(stdout).toMatch(new RegExp(`✗ tcp: connection refused by 127\\.0\\.0\\.1 port ${port}`));
    expect(stdout).toContain('    try: nothing listens there');
    expect(stdout).toContain('the connection does not work');
  });

  it('a web page: --json gives the report, exit 2', async () => {
    const { code, stdout } = await doctor(origin, '--json');
    expect(code).toBe(2);
    const report = JSON.parse(stdout);
    expect(report.ok).toBe(false);
    expect(report.steps.map((s: { id: string }) => s.id)).toEqual(['url', 'dns', 'tcp', 'tls', 'http', 'token', 'era']);
    expect(report.steps[0].status).toBe('warning');
    expect(report.steps[4]).toMatchObject({ status: 'failed', summary: expect.stringContaining('this is a web page, not an MCP endpoint') });
    expect(report.steps[6]).toMatchObject({ status: 'skipped' });
  });

  it('a working stdio server: every step ✓, exit 0', async () => {
    const { code, stdout } = await doctor('--', process.execPath, fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url)), 'serve', '--tools', tools);
    expect(stdout).toMatch(/^✓ spawn: /);
    expect(stdout).toMatch(/✓ era: (modern|legacy) era/);
    expect(stdout).toContain('✓ tools: 1 tool listed');
    expect(stdout).toContain('the connection works');
    expect(code).toBe(0);
  });

  it('a stdio command that does not exist: exit 2', async () => {
    const { code, stdout } = await doctor('--', 'toolwright-no-such-command-xyz');
    expect(code).toBe(2);
    expect(stdout).toContain('✗ spawn: command not found: toolwright-no-such-command-xyz');
  });
});
