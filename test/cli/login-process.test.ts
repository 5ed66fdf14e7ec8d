/**
 * `toolwright login` as the built command in a child process (issue 21: it printed the URL
 * and exited 0.3 s later, code 13, since nothing kept the process alive while it waited for
 * the browser; the in-process login test could not see it, the test runner keeps its own loop
 * alive). A real authorization server (oidc-provider) guards a real toolwright server; the test
 * is the user who opens the printed URL, signs in and consents.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpServerHandle } from '../../src/transports/http-server.js';
import { playBrowser } from '../helpers/browser.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../helpers/oidc.js';
import { serveProtectedNotes, type NoteCall } from '../helpers/protected-notes.js';

let as: LocalAuthorizationServer;
let http: HttpServerHandle;
let config: string;
const calls: NoteCall[] = [];

beforeAll(async () => {
  config = await mkdtemp(join(tmpdir(), 'toolwright-login-process-'));
  as = await startAuthorizationServer({ interactive: true });
  http = await serveProtectedNotes(as, calls);
});
afterAll(async () => {
  await http?.close();
  await as?.close();
  await rm(config, { recursive: true, force: true });
});

/** No display, so the CLI prints the URL rather than opening a browser; tokens go to a temp config dir. */
const env = { XDG_CONFIG_HOME: undefined as string | undefined, DISPLAY: undefined, WAYLAND_DISPLAY: undefined };

describe('toolwright login, as a process', () => {
  it('waits for the browser, completes the login when the redirect arrives, and the stored tokens work in another process', async () => {
    const login = startBuiltCli(['login', http.url, '--no-browser'], { env: { ...env, XDG_CONFIG_HOME: config } });
    const [, url] = await login.waitForStderr(/^ {2}(http\S+)$/m);
    await login.waitForStderr(/waiting for the browser to come back/);
    // Still there, waiting, however long the user takes to get to the browser: nothing has been
    // answered yet, so an exit now (any code) would be the bug.
    expect(login.child.exitCode).toBeNull();
    const browser = await playBrowser(url, { login: 'carol' });
    expect(browser.landedOn?.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    expect((await login.exit).code).toBe(0);
    expect(login.stderr()).toMatch(/logged in to .* \(authorization server http:\/\/127\.0\.0\.1:\d+; scope: [^)]*tools:read[^)]*\)/);

    const call = startBuiltCli(['call', http.url, 'read_notes'], { env: { ...env, XDG_CONFIG_HOME: config } });
    expect((await call.exit).code).toBe(0);
    expect(call.stdout().trim()).toBe('three notes');
    expect(calls.at(-1)).toMatchObject({ tool: 'read_notes', principal: expect.any(String) });
  });

  it('gives up when --timeout runs out with no browser back, and exits', async () => {
    const login = startBuiltCli(['login', http.url, '--no-browser', '--timeout', '1500'], { env: { ...env, XDG_CONFIG_HOME: config } });
    await login.waitForStderr(/waiting for the browser to come back/);
    const { code } = await login.exit;
    expect(code).toBe(2);
    expect(login.stderr()).toMatch(/toolwright: .*(timed out|timeout)/i);
  });
});
