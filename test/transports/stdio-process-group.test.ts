/**
 * A stdio server in its own process group (`ownProcessGroup`, what the CLI's call and connect
 * use) behind a launcher, as npx runs one: close() ends the whole group, and a client process
 * that exits with the server still running takes the group with it (issue 21).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { isAlive } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';
import { tsProgram } from '../helpers/ts-program.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/cli/${name}`, import.meta.url));
const behindLauncher = (events: string) => ({
  command: process.execPath,
  args: [fixture('launcher.mjs'), process.execPath, fixture('stuck-server.mjs')],
  env: { EVENTS_FILE: events },
  stderr: 'ignore' as const,
  ownProcessGroup: true,
});

/** A server the code under test failed to end is not left running (it ignores SIGTERM). */
function reapAfterTest(file: string): void {
  onTestFinished(() => {
    const pid = startedPid(file);
    if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
}

function startedPid(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((e) => e.started)?.started;
}

describe.skipIf(process.platform === 'win32')('stdio server in its own process group', () => {
  it('close() ends the server behind the launcher too (it ignores stdin closing and SIGTERM)', async () => {
    const events = join(tempDir('toolwright-group-close-'), 'events.jsonl');
    reapAfterTest(events);
    const client = await ToolClient.connect(behindLauncher(events), { era: 'legacy', closeGraceMs: 100, onWarning: () => {} });
    void client.callTool('forever', {}).catch(() => {});
    await expect.poll(() => startedPid(events), { timeout: 20_000 }).toBeGreaterThan(0);
    await client.close();
    // SIGKILL was sent to the group; the kernel finishes it off, we wait to see it done.
    await expect.poll(() => isAlive(startedPid(events)!), { timeout: 10_000 }).toBe(false);
  });

  it('a client process that exits with the server running takes its group along', async () => {
    const events = join(tempDir('toolwright-group-exit-'), 'events.jsonl');
    reapAfterTest(events);
    const script = `
      const { ToolClient } = await import(${JSON.stringify(fileURLToPath(new URL('../../src/client.ts', import.meta.url)))});
      const client = await ToolClient.connect(${JSON.stringify(behindLauncher(events))}, { era: 'legacy', onWarning: () => {} });
      client.callTool('forever', {}).catch(() => {});
      const { existsSync } = await import('node:fs');
      const timer = setInterval(() => { if (existsSync(${JSON.stringify(events)})) { clearInterval(timer); process.exit(0); } }, 20);
    `;
    const program = join(tempDir('toolwright-group-client-'), 'client.ts');
    writeFileSync(program, script);
    const child = spawn(process.execPath, tsProgram(program), { stdio: 'ignore' });
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    const server = startedPid(events)!;
    expect(server).toBeGreaterThan(0);
    // SIGKILL was sent to the group before the process ended; the kernel delivers it, we only wait to see it done.
    await expect.poll(() => isAlive(server), { timeout: 10_000 }).toBe(false);
  });
});
