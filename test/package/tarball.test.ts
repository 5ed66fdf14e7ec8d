import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// What `npm pack` puts in the tarball (package.json "files"): what the package loads at run time
// and its type declarations, not tsc's per-module output that the bundled entry points never load
// (issue 33: unpacking ~1,100 unused files was a third of the install).
const root = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
};

let packing: Promise<string[]> | undefined;
const packedFiles = () => (packing ??= pack());

async function pack(): Promise<string[]> {
  const { stdout } = await run(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout) as [{ files: { path: string }[] }];
  return packed.files.map((f) => f.path);
}

describe('the packed tarball', () => {
  it('holds every entry point, its declarations, the bin and the files read at run time', async () => {
    const files = new Set(await packedFiles());
    const targets = Object.values(pkg.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)));
    for (const target of [...targets, ...Object.values(pkg.bin)]) expect(files, target).toContain(target.replace(/^\.\//, ''));
    for (const runtime of ['dist/console/index.html', 'dist/console/app.js', 'dist/console/app.css', 'dist/schema/meta-2020.cjs', 'dist/schema/meta-07.cjs'])
      expect(files, runtime).toContain(runtime);
    // Every chunk the entries import is there.
    for (const entry of [...files].filter((f) => /^dist\/.*\.js$/.test(f)))
      for (const [, spec] of readFileSync(`${root}${entry}`, 'utf8').matchAll(/(?:from\s+|import\s*\(?\s*)"(\.{1,2}\/[^"]+)"/g)) {
        const chunk = new URL(spec, `file:///${entry}`).pathname.slice(1);
        expect(files, `${entry} imports ${chunk}`).toContain(chunk);
      }
  }, 60_000);

  it("leaves out tsc's per-module .js and every source map", async () => {
    const files = await packedFiles();
    const js = files.filter((f) => f.endsWith('.js'));
    expect(js.filter((f) => !/^dist\/([^/]+|client\/core|cli\/main|chunks\/[^/]+|console\/app)\.js$/.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
  }, 60_000);
});
