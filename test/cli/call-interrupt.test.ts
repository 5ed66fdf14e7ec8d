/**
 * Ctrl-C on `toolwright call … -- <launcher> <server>` (issue 21: behind npx the CLI sat on a
 * blank line until the server finished, ~26 s): the CLI tells the server to cancel, closes its
 * stdin, then ends the server's whole process group — the launcher and the real server it
 * started — and exits 130. The built CLI runs as a child process and gets a real SIGINT.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startBuiltCli } from '../helpers/cli-process.js';
import { isAlive } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/cli/${name}`, import.meta.url));

/** A server the code under test failed to end is not left running (it ignores SIGTERM). */
function reapAfterTest(file: string): void {
  onTestFinished(() => {
    const pid = events(file).find((e) => e.started)?.started;
    if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
}

function events(file: string): Array<{ started?: number; cancelled?: boolean }> {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
}

describe('Ctrl-C on a stdio call', () => {
  it('cancels the call, ends the server behind its launcher (SIGTERM ignored, so SIGKILL to the group) and exits 130', async () => {
    const dir = tempDir('toolwright-call-interrupt-');
    const file = join(dir, 'events.jsonl');
    reapAfterTest(file);
    const cli = startBuiltCli(['call', 'forever', '--', process.execPath, fixture('launcher.mjs'), process.execPath, fixture('stuck-server.mjs')], {
      cwd: dir,
      env: { EVENTS_FILE: file },
    });
    await expect.poll(() => events(file).find((e) => e.started)?.started, { timeout: 20_000 }).toBeGreaterThan(0);
    const server = events(file).find((e) => e.started)!.started!;
    expect(isAlive(server)).toBe(true);

    cli.child.kill('SIGINT');
    // Without the group kill the CLI waits on pipes the server holds, for as long as it runs:
    // here forever, so the test's own timeout is what would end it.
    expect(await cli.exit).toEqual({ code: 130, signal: null });
    expect(cli.stderr()).toContain('the call was cancelled (Ctrl-C); the server was told to stop');
    expect(events(file).some((e) => e.cancelled)).toBe(true);
    // SIGKILL went to the whole group; the kernel finishes it off, we wait to see it done.
    await expect.poll(() => isAlive(server), { timeout: 10_000 }).toBe(false);
  }, 60_000);

  it('Ctrl-C while still connecting exits 130 and takes the server behind its launcher along', async () => {
    const dir = tempDir('toolwright-connect-interrupt-');
    const file = join(dir, 'events.jsonl');
    reapAfterTest(file);
    const cli = startBuiltCli(['call', 'forever', '--', process.execPath, fixture('launcher.mjs'), process.execPath, fixture('stuck-server.mjs')], {
      cwd: dir,
      env: { EVENTS_FILE: file, STUCK_AT: 'initialize' },
    });
    await expect.poll(() => events(file).find((e) => e.started)?.started, { timeout: 20_000 }).toBeGreaterThan(0);
    const server = events(file).find((e) => e.started)!.started!;

    cli.child.kill('SIGINT');
    // Without it the CLI died of the signal and left the server (in a process group of its own) running.
    expect(await cli.exit).toEqual({ code: 130, signal: null });
    await expect.poll(() => isAlive(server), { timeout: 10_000 }).toBe(false);
  }, 60_000);
});
