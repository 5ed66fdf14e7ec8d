import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';

async function run(...argv: string[]) {
  let stderr = '';
  const code = await runCli(argv, { stdout: () => {}, stderr: (t) => void (stderr += t) });
  return { code, stderr };
}

// A stdio "server" that writes a line on stderr and exits before answering anything.
const dying = [process.execPath, '-e', 'process.stderr.write("server: cannot start\\n"); process.exit(1)'];

describe('a stdio server that exits at once', () => {
  it('without --verbose, the CLI shows the end of its stderr (captured), so it need not suggest --verbose', async () => {
    const { code, stderr } = await run('list', '--', ...dying);
    expect(code).toBe(2);
    expect(stderr).toContain("the server's stderr (last 1 line):\n  server: cannot start\n");
    expect(stderr).not.toContain('--verbose');
  });

  it('with --verbose (its stderr already shown), the CLI does not suggest --verbose', async () => {
    const { code, stderr } = await run('list', '--verbose', '--', ...dying);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^toolwright: connection failed/);
    expect(stderr).not.toContain('--verbose');
  });
});
