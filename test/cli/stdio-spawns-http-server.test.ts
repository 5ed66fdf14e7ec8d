/**
 * `toolwright list -- toolwright serve` in a folder whose config says `transport: http` (as
 * `toolwright init` writes): the child serves HTTP while the client waits on its stdout. The
 * client sees the child's "serving … on http://" line and fails at once, naming --stdio, and
 * stops the server it started. The built CLI, as the README has it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtCli, startBuiltCli } from '../helpers/cli-process.js';
import { auditEnv, tempDir } from '../helpers/temp.js';

function httpConfigFolder(): string {
  const cwd = tempDir('toolwright-stdio-http-');
  writeFileSync(join(cwd, 'toolwright.config.json'), JSON.stringify({ server: { transport: 'http', port: 0, audit: false }, toolsets: { math: {} } }));
  return cwd;
}

const HINT =
  'toolwright: connection failed: the server serves HTTP, not stdio, so it will not answer on its stdout: add --stdio to its command (toolwright serve --stdio), or start it on its own and give its URL';

describe('a stdio client that starts toolwright serve configured for HTTP', () => {
  it.each([
    ['list', []],
    ['call', ['calculate', 'expression=1+1']],
  ])('%s fails at once with a hint naming --stdio, and stops the server it started', async (command, args) => {
    const cwd = httpConfigFolder();
    const client = startBuiltCli([command, ...args, '--', process.execPath, builtCli, 'serve'], { cwd, env: auditEnv() });
    const { code } = await client.exit;
    const stderr = client.stderr();
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(HINT);
    expect(stderr).not.toContain('did not answer');
    // The server's own line is shown with it, and the server it announced is gone.
    const url = /serving \d+ tool\(s\) on (http:\/\/\S+)/.exec(stderr)?.[1];
    expect(url).toBeDefined();
    await expect(fetch(url!, { method: 'POST' })).rejects.toThrow();
  });

  it('the same command with --stdio works', async () => {
    const cwd = httpConfigFolder();
    const call = startBuiltCli(['call', 'calculate', 'expression=1+1', '--', process.execPath, builtCli, 'serve', '--stdio'], { cwd, env: auditEnv() });
    expect((await call.exit).code).toBe(0);
    expect(call.stdout()).toBe('2\n');
  });
});
