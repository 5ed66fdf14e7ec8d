import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { killAndReap } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';
import { modernMeta } from '../helpers/wire.js';

// The BUILT command, as a user runs it: the source CLI runs under `--import tsx`, which would hide how the module is loaded.
const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

async function serveOnce(cwd: string, tools: string) {
  const child = spawn(process.execPath, [main, 'serve', '--stdio', '--tools', tools], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  onTestFinished(() => killAndReap(child));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end();
  const [code] = await once(child, 'close');
  return { code, stderr };
}

describe('loading a --tools module', () => {
  it.each(['tools.ts', 'tools.js'])('points a syntax error in %s at its file, line and column, with the line', async (name) => {
    const cwd = tempDir('toolwright-load-');
    writeFileSync(join(cwd, name), "export default [\n  { name: 'a', handler: () => 'x' ,, },\n];\n");
    const { code, stderr } = await serveOnce(cwd, name);
    expect(code).toBe(1);
    expect(stderr).toContain(`toolwright: could not load ${name}: ${name}:2:36: Expected identifier but found ","\n`);
    expect(stderr).toContain("  2 |   { name: 'a', handler: () => 'x' ,, },\n");
    expect(stderr).not.toContain('Transform failed');
    expect(stderr).not.toContain(cwd);
  });

  it('counts the column in characters, and keeps tabs under the line so the caret lines up', async () => {
    const cwd = tempDir('toolwright-load-');
    writeFileSync(join(cwd, 'tools.ts'), "export default [];\n\tconst t = 'ééé' ,, 1;\n");
    const { stderr } = await serveOnce(cwd, 'tools.ts');
    expect(stderr).toContain('tools.ts:2:19: Expected identifier but found ","\n  2 | \tconst t = \'ééé\' ,, 1;\n      \t                 ^\n');
  });

  it('names the imported file where the syntax error is, for an ES module V8 gives no place for', async () => {
    const cwd = tempDir('toolwright-load-');
    mkdirSync(join(cwd, 'lib'));
    writeFileSync(join(cwd, 'package.json'), '{"type":"module"}');
    writeFileSync(join(cwd, 'lib', 'helper.js'), 'export const ok = 1;\nexport const broken = (;\n');
    writeFileSync(join(cwd, 'tools.js'), "import { ok } from './lib/helper.js';\nexport default [ok];\n");
    const { code, stderr } = await serveOnce(cwd, 'tools.js');
    expect(code).toBe(1);
    expect(stderr).toContain(`could not load tools.js: ${join('lib', 'helper.js')}:2:24: Unexpected ";"\n  2 | export const broken = (;\n`);
  });

  it('logs a throwing handler\'s stack with the user\'s file, for a TypeScript module outside a "type": "module" package', async () => {
    const cwd = tempDir('toolwright-load-');
    const tools = join(cwd, 'tools.ts');
    writeFileSync(
      tools,
      [
        'const fail = (why: string): never => {',
        '  throw new Error(why);',
        '};',
        "export default [{ name: 'boom', description: 'Fails.', inputSchema: { type: 'object' }, handler: () => fail('kaboom') }];",
        '',
      ].join('\n'),
    );
    const child = spawn(process.execPath, [main, 'serve', '--stdio', '--tools', tools], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    onTestFinished(() => killAndReap(child));
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'boom', arguments: {}, _meta: modernMeta() } })}\n`);
    await expect.poll(() => stderr, { timeout: 15_000 }).toContain('kaboom');
    await expect.poll(() => stdout, { timeout: 15_000 }).toContain('"isError":true');
    const logged = JSON.parse(stderr.split('\n').find((l) => l.includes('kaboom'))!);
    const frames: string[] = logged.err.stack.split('\n').slice(1, 3);
    expect(frames[0]).toContain(`${tools}:2:`); // `fail`, at the line of the source
    expect(frames[1]).toContain(`${tools}:4:`);
    expect(logged.err.stack).not.toContain('data:text/javascript');
  });
});
