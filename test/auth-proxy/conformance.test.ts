/**
 * The official conformance suite's authorization-server scenarios against the facade (its
 * `authorization` command): the RFC 8414 metadata endpoint, and the authorization code grant
 * with a pre-registered public client, the test being the user's browser (toolwright's consent,
 * the upstream provider's login) that brings the code to the suite's callback.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { browse } from './helpers/browser.js';
import { startOidcFacade, type OidcFacade } from './helpers/facade-server.js';
import { register } from './helpers/flow.js';

const root = join(import.meta.dirname, '..', '..');
const suite = [join(root, 'scripts/node20/register.mjs'), join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')];

let server: OidcFacade;
beforeAll(async () => {
  server = await startOidcFacade();
});
afterAll(async () => {
  await server?.close();
});

/** Runs one scenario; `onLine` sees its output as it comes. Resolves with the exit code and the whole output. */
function runScenario(args: string[], onLine: (text: string) => void = () => {}): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', suite[0], suite[1], 'authorization', '--url', server.origin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const take = (chunk: Buffer) => {
    out += chunk;
    onLine(out);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

describe('conformance suite, authorization server scenarios', () => {
  it('authorization-server-metadata-endpoint passes', async () => {
    const { code, out } = await runScenario(['--scenario', 'authorization-server-metadata-endpoint']);
    expect(out).toMatch(/Passed: 2\/2/);
    expect(out).not.toMatch(/FAIL/);
    expect(code, out).toBe(0);
  }, 60_000);

  it('every scenario passes (authorization-code-grant needs the metadata scenario first), the test being the user in the browser', async () => {
    const port = await freePort();
    const client = await register(server.origin, { redirect_uris: [`http://localhost:${port}/callback`, `http://127.0.0.1:${port}/callback`] });
    let started = false;
    let browsing: Promise<unknown> | undefined;
    const { code, out } = await runScenario(['--client-id', client.client_id, '--resource', server.url, '--port', String(port)], (text) => {
      const url = /^(http\S+\/authorize\?\S+)$/m.exec(text)?.[1];
      if (!url || started) return;
      started = true;
      browsing = browse(url, { stopAt: (u) => u.port === String(port) }).then((run) => fetch(run.landedOn!).then((r) => r.text()));
    });
    await browsing;
    expect(started).toBe(true);
    expect(out).toMatch(/✓ authorization-code-grant: 1 passed, 0 failed/);
    expect(out).not.toMatch(/FAIL/);
    expect(code, out).toBe(0);
  }, 120_000);
});
