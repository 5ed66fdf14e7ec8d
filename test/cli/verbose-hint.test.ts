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
  it('without --verbose, the CLI says how to see its stderr', async () => {
    const { code, stderr } = await run('list', '--', ...dying);
    expect(code).toBe(2);
    expect(stderr).toContain("run with --verbose to see the server's stderr");
  });

  it('with --verbose (its stderr already shown), the CLI does not suggest --verbose', async () => {
    const { code, stderr } = await run('list', '--verbose', '--', ...dying);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^toolwright: connection failed/);
    expect(stderr).not.toContain('--verbose');
  });
});
