import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { auditEnv, tempDir } from '../helpers/temp.js';

/**
 * What a tools module sees of its own loading under `toolwright dev`, which evaluates each
 * generation as CommonJS (so a replaced one is freed) unless it uses top-level await: the same
 * as an ES module imported by Node. Packages of the project: an ES-only one (the `import`
 * condition alone) with a default and a named export, a CommonJS one; `toolwright` from the
 * CLI itself (none installed beside); a tsconfig `paths` alias; `import.meta.url`; stack frames.
 */
function project(): string {
  const dir = tempDir('toolwright-dev-forms-');
  const esm = join(dir, 'node_modules', 'esm-only');
  mkdirSync(esm, { recursive: true });
  writeFileSync(join(esm, 'package.json'), JSON.stringify({ name: 'esm-only', type: 'module', exports: { '.': { import: './index.js' } } }));
  writeFileSync(join(esm, 'index.js'), "export default 'hello';\nexport const punctuation = '!';\n");
  const cjs = join(dir, 'node_modules', 'cjs-pkg');
  mkdirSync(cjs, { recursive: true });
  writeFileSync(join(cjs, 'package.json'), JSON.stringify({ name: 'cjs-pkg', main: 'index.js' }));
  writeFileSync(join(cjs, 'index.js'), "module.exports = function shout(s) { return s.toUpperCase(); };\nmodule.exports.suffix = '?';\n");
  // A project file imported through a tsconfig `paths` alias: bundled, not taken for a package.
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@lib/*': ['./lib/*'] } } }));
  mkdirSync(join(dir, 'lib'));
  writeFileSync(join(dir, 'lib', 'label.ts'), "export const label: string = 'aliased';\n");
  return dir;
}

const TOOLS = `import greeting, { punctuation } from 'esm-only';
import shout, { suffix } from 'cjs-pkg';
import { ToolError } from 'toolwright';
import { label } from '@lib/label';
const fail = (why: string): never => {
  throw new Error(why);
};
export default [
  { name: 'parts', description: 'what the module imported', inputSchema: { type: 'object' }, handler: () => [greeting, punctuation, shout('x'), suffix, label, import.meta.url].join(' ') },
  { name: 'boom', description: 'fails', inputSchema: { type: 'object' }, handler: () => fail('kaboom') },
  { name: 'refuse', description: 'refuses', inputSchema: { type: 'object' }, handler: () => { throw new ToolError('refused by the tool'); } },
  { name: 'later', description: 'imports when called', inputSchema: { type: 'object' }, handler: async () => (await import('esm-only')).default + ' later' },
];
`;

type Result = { isError?: boolean; content: { type: string; text: string }[] };
const text = (result: unknown) => (result as Result).content[0]!.text;

const HEAP_PROBE = pathToFileURL(fileURLToPath(new URL('../../bench/lib/heap-probe.mjs', import.meta.url))).href;

async function startDev(dir: string) {
  // The heap probe collects garbage on SIGUSR2: what a module needs (its source map) must outlive a GC.
  const env = { ...auditEnv(), NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc --import=${HEAP_PROBE}` };
  const dev = startBuiltCli(['dev', '--tools', 'tools.ts', '--port', '0', '--no-open'], { cwd: dir, env });
  const [, url] = await dev.waitForStderr(/serving \d+ tool\(s\) on (http:\/\/\S+)/);
  await dev.waitForStderr(/toolwright dev: watching/);
  const client = await ToolClient.connect({ url: url! });
  onTestFinished(() => client.close());
  return { dev, client };
}

describe('toolwright dev, what a module sees of its loading', () => {
  it('imports packages as Node does, names the entry in import.meta.url, keeps ToolError the server’s, and points stack frames at the source', async () => {
    const dir = project();
    writeFileSync(join(dir, 'tools.ts'), TOOLS);
    const { dev, client } = await startDev(dir);
    const tools = join(dir, 'tools.ts');
    expect(text(await client.callTool('parts'))).toBe(`hello ! X ? aliased ${pathToFileURL(tools).href}`);
    expect(await client.callTool('refuse')).toMatchObject({ isError: true, content: [{ text: 'refused by the tool' }] });
    expect(text(await client.callTool('later'))).toBe('hello later'); // import() from the project's folder

    dev.child.kill('SIGUSR2');
    await dev.waitForStderr(/HEAP-AFTER-GC \d+/);
    expect(await client.callTool('boom')).toMatchObject({ isError: true });
    await expect.poll(() => dev.stderr(), { timeout: 10_000 }).toContain('kaboom');
    const logged = JSON.parse(
      dev
        .stderr()
        .split('\n')
        .find((line) => line.includes('kaboom'))!,
    );
    const frames: string[] = logged.err.stack.split('\n').slice(1, 3);
    expect(frames[0]).toContain(`${tools}:6:`); // `fail`, at the line of the source
    expect(frames[1]).toContain(`${tools}:10:`);

    // A name the package does not export is refused at the import, as Node refuses to link it.
    writeFileSync(join(dir, 'tools.ts'), TOOLS.replace('{ punctuation }', '{ punctuation, missing }').replace('[greeting,', '[missing, greeting,'));
    await dev.waitForStderr(/reload failed/);
    expect(dev.stderr()).toMatch(/tools\.ts:1:33: No matching export .* for import "missing"/);
    expect(text(await client.callTool('parts'))).toMatch(/^hello ! /);
    // So is a package that is not installed, with the place of its import.
    writeFileSync(join(dir, 'tools.ts'), TOOLS.replace("from 'esm-only'", "from 'not-installed'"));
    await dev.waitForStderr(/tools\.ts:1:39: could not import "not-installed": Cannot find package 'not-installed'\n/);
    expect(text(await client.callTool('parts'))).toMatch(/^hello ! /);
  }, 90_000);

  it('serves a module with top-level await (loaded as an ES module), and reloads it', async () => {
    const dir = project();
    const module = (label: string) =>
      `const label = await Promise.resolve(${JSON.stringify(label)});\nexport default [{ name: 'label', description: 'says its label', inputSchema: { type: 'object' }, handler: () => label }];\n`;
    writeFileSync(join(dir, 'tools.ts'), module('first'));
    const { dev, client } = await startDev(dir);
    expect(text(await client.callTool('label'))).toBe('first');
    writeFileSync(join(dir, 'tools.ts'), module('second'));
    await dev.waitForStderr(/reloaded tools\.ts \(1 tool\)/);
    expect(text(await client.callTool('label'))).toBe('second');
  }, 90_000);
});
