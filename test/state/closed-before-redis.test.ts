/**
 * A server closed while its Redis has never answered (a wrong address, Redis not up yet): what
 * still waited for the first connection ends with the close, and nothing is logged afterwards.
 * Port 1 on 127.0.0.1 refuses at once, so no Redis is needed.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { redisConnection, StateUnavailableError } from '../../src/state/redis/connection.js';

const UNREACHABLE = 'redis://127.0.0.1:1';

describe('closed before Redis was ever reached', () => {
  it('a command waiting for the first connection fails once the last user lets go, not at the connect timeout', async () => {
    // A minute to connect: the test's own timeout (20 s) ends first if the close does not end the wait.
    const connection = redisConnection(UNREACHABLE, { keyPrefix: `closed-${process.pid}:`, connectTimeoutMs: 60_000 });
    const waiting = connection.run(async () => 'answered');
    await connection.release();
    await expect(waiting).rejects.toBeInstanceOf(StateUnavailableError);
  });

  it('a closed server logs nothing more and lets its process exit on its own', () => {
    // The built server in a process of its own: close() right after start, while a tools change
    // waits to be shared and the task store would clean up. Redis's connect timeout is 2 s; a
    // process still running after 1.5 s is held by what close() should have ended.
    const dist = pathToFileURL(join(import.meta.dirname, '../../dist/index.js')).href;
    const script = `
      const { ToolServer } = await import(${JSON.stringify(dist)});
      const server = new ToolServer({
        name: 'closing', version: '1.0.0', audit: false,
        tools: [{ name: 'a', description: 'a', inputSchema: { type: 'object' }, handler: () => 'ok' }],
        state: { redis: ${JSON.stringify(UNREACHABLE)} }, requestStateSecret: 'shared',
      });
      server.close();
      console.error('closed');
      setTimeout(() => console.error('still running 1.5 s after close'), 1500).unref();
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 15_000 });
    expect(run.error).toBeUndefined();
    expect(run.status).toBe(0);
    const afterClose = run.stderr.slice(run.stderr.indexOf('closed\n') + 'closed\n'.length);
    expect(run.stderr).toContain('closed\n');
    expect(afterClose).not.toContain('still running');
    expect(afterClose).not.toContain('could not be shared');
    expect(afterClose).toBe('');
  });
});
