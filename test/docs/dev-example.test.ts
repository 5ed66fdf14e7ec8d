import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { codeBlocks } from '../helpers/markdown-blocks.js';
import { auditEnv, tempDir } from '../helpers/temp.js';

/**
 * docs/dev.md's example, run as the page prints it (examples.test.ts only type-checks it): its
 * tools module served by `toolwright dev`, the page's edit saved over it, the broken edit the
 * page shows, each with what the page says happens.
 */
function documented(): { first: string; edited: string; broken: { line: string; error: string } } {
  const page = readFileSync(join(import.meta.dirname, '../../docs/dev.md'), 'utf8');
  const blocks = codeBlocks(page);
  const first = blocks.find((b) => b.code.startsWith('// tools.ts\n'))?.code;
  const edited = blocks.find((b) => b.code.startsWith('// tools.ts, edited\n'))?.code;
  const failure = blocks.find((b) => b.code.includes('reload failed'))?.code;
  const broken = failure && /^(tools\.ts:\d+:\d+: .+)\n\s+\d+ \| (.+)$/m.exec(failure);
  if (!first || !edited || !broken) throw new Error('docs/dev.md: the example is not where this test looks for it');
  return { first, edited, broken: { error: broken[1]!, line: broken[2]! } };
}

/** The page's type error: the module that has it, and the place and message it says the terminal shows. */
function documentedTypeError(): { module: string; error: string } {
  const blocks = codeBlocks(readFileSync(join(import.meta.dirname, '../../docs/dev.md'), 'utf8'));
  const module = blocks.find((b) => b.code.startsWith('// tools.ts, with a type error\n'))?.code;
  const shown = blocks.find((b) => b.code.includes('(TS2322)'))?.code;
  const error = shown && /^tools\.ts:\d+:\d+: .+ \(TS\d+\)$/m.exec(shown)?.[0];
  if (!module || !error) throw new Error('docs/dev.md: the type error example is not where this test looks for it');
  return { module, error };
}

describe("docs/dev.md's example", () => {
  it('serves the module, applies the edit to the connected client, and keeps it serving through the broken edit', async () => {
    const { first, edited, broken } = documented();
    const dir = tempDir('toolwright-dev-doc-');
    writeFileSync(join(dir, 'tools.ts'), first);
    const dev = startBuiltCli(['dev', '--tools', 'tools.ts', '--port', '0', '--no-open'], { cwd: dir, env: auditEnv() });
    await dev.waitForStderr(/toolwright dev: watching tools\.ts; edits apply without a restart/);
    const url = /serving \d+ tool\(s\) on (http:\/\/\S+)/.exec(dev.stderr())![1]!;
    const client = await ToolClient.connect({ url });
    onTestFinished(() => client.close());
    expect((await client.callTool('version')).content).toEqual([{ type: 'text', text: 'version one' }]);

    writeFileSync(join(dir, 'tools.ts'), edited);
    await dev.waitForStderr(/toolwright dev: reloaded tools\.ts \(2 tools\) in \d+ ms/);
    expect((await client.callTool('shout', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'HI' }]);

    // The page's broken line, in place of the line it breaks.
    const whole = edited.split('\n');
    const at = Number(/:(\d+):/.exec(broken.error)![1]) - 1;
    whole[at] = broken.line;
    writeFileSync(join(dir, 'tools.ts'), whole.join('\n'));
    await dev.waitForStderr(/reload failed; still serving the last good version/);
    expect(dev.stderr()).toContain(broken.error);
    expect((await client.callTool('version')).content).toEqual([{ type: 'text', text: 'version two' }]);
  }, 90_000);

  it("refuses the page's type error when the project has TypeScript, as the page shows it", async () => {
    const { first } = documented();
    const { module, error } = documentedTypeError();
    const dir = tempDir('toolwright-dev-doc-');
    mkdirSync(join(dir, 'node_modules'));
    // The repository's TypeScript stands in for the project's own.
    symlinkSync(join(import.meta.dirname, '../../node_modules/typescript'), join(dir, 'node_modules', 'typescript'), 'dir');
    writeFileSync(join(dir, 'tools.ts'), first);
    const dev = startBuiltCli(['dev', '--tools', 'tools.ts', '--port', '0', '--no-open'], { cwd: dir, env: auditEnv() });
    await dev.waitForStderr(/toolwright dev: watching tools\.ts/);
    const url = /serving \d+ tool\(s\) on (http:\/\/\S+)/.exec(dev.stderr())![1]!;
    const client = await ToolClient.connect({ url });
    onTestFinished(() => client.close());

    writeFileSync(join(dir, 'tools.ts'), module);
    await dev.waitForStderr(/reload failed; still serving the last good version/);
    expect(dev.stderr()).toContain(`still serving the last good version:\n${error}\n`);
    expect((await client.callTool('version')).content).toEqual([{ type: 'text', text: 'version one' }]);
  }, 90_000);
});
