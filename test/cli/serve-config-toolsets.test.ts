import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtCli, startBuiltCli } from '../helpers/cli-process.js';
import { auditEnv, tempDir } from '../helpers/temp.js';

const shout = fileURLToPath(new URL('../fixtures/cli/tools.mjs', import.meta.url));

/** The tools `toolwright serve --stdio` offers in `cwd`, as `toolwright list --json -- …` sees them (both built). */
async function servedTools(cwd: string): Promise<string[]> {
  const list = startBuiltCli(['list', '--json', '--', process.execPath, builtCli, 'serve', '--stdio'], { cwd, env: auditEnv() });
  const { code } = await list.exit;
  expect(list.stderr()).toBe('');
  expect(code).toBe(0);
  return (JSON.parse(list.stdout()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
}

describe('which built-in tools a config serves', () => {
  it('a config that lists tools: serves those tools alone, no built-in toolset and no ./workspace', async () => {
    const cwd = tempDir('toolwright-config-tools-');
    writeFileSync(join(cwd, 'toolwright.config.json'), JSON.stringify({ server: { audit: false }, tools: [shout] }));
    expect(await servedTools(cwd)).toEqual(['shout']);
    expect(existsSync(join(cwd, 'workspace'))).toBe(false);
  });

  it('a config with neither tools: nor toolsets: serves no built-in tool either, and says so', async () => {
    const cwd = tempDir('toolwright-config-tools-');
    writeFileSync(join(cwd, 'toolwright.config.json'), JSON.stringify({ server: { audit: false } }));
    expect(await servedTools(cwd)).toEqual([]);
    expect(existsSync(join(cwd, 'workspace'))).toBe(false);
    // Such configs once got the default toolsets: the server says why it is empty.
    const serve = startBuiltCli(['serve', '--stdio'], { cwd, env: auditEnv() });
    serve.child.stdin.end();
    expect((await serve.exit).code).toBe(0);
    expect(serve.stderr()).toContain(
      'toolwright: toolwright.config.json names no toolsets and no tools, so it serves none; add a toolsets: section for the built-in tools (docs/configuration.md)\n',
    );
  });

  it('a config that names toolsets: serves exactly those, beside its tools', async () => {
    const cwd = tempDir('toolwright-config-tools-');
    writeFileSync(join(cwd, 'toolwright.config.json'), JSON.stringify({ server: { audit: false }, toolsets: { math: {} }, tools: [shout] }));
    expect(await servedTools(cwd)).toEqual(['calculate', 'calculate_sum', 'shout']);
  });

  it('no config and no --tools: the default toolsets (what npm start serves)', async () => {
    const cwd = tempDir('toolwright-config-tools-');
    writeFileSync(join(cwd, 'package.json'), '{}'); // a project: its ./workspace and state stay in the temp dir
    expect(await servedTools(cwd)).toEqual(expect.arrayContaining(['read_file', 'write_file', 'analyze_csv', 'get_current_time', 'calculate']));
    expect((await servedTools(cwd)).length).toBe(12);
  });
});
