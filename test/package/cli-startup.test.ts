import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUERY_LIMIT } from '../../src/audit/query.js';
import { runCli } from '../../src/cli/program.js';

// Every `toolwright` start loads the command definitions (dist/cli/main.js and what it imports
// statically); each command's action module is imported when that command runs. The test suite
// and scripts start the CLI hundreds of times: `--version`, `--help` and usage errors must not
// compile the server, the client or their packages.
const root = new URL('../../', import.meta.url).pathname;

describe('the built CLI at start-up', () => {
  it('loads the command definitions and commander only: no server, client or audit code', () => {
    const files = staticGraph(`${root}dist/cli/main.js`);
    const code = files.map((file) => readFileSync(file, 'utf8')).join('\n');
    expect(code).not.toMatch(/var (ToolServer|ToolClient|SqliteAuditSink|CallPipeline|Gateway) = class/);
    expect(packagesImported(files)).toEqual(['commander']);
    expect(files.length).toBeLessThanOrEqual(6);
  });

  it('imports each command when it runs, from a chunk of its own', () => {
    const main = readFileSync(`${root}dist/cli/main.js`, 'utf8');
    for (const action of [
      'serve',
      'list',
      'call',
      'doctor',
      'audit',
      'audit-prune',
      'auth-hash-key',
      'auth-rotate-key',
      'task',
      'primitives-actions',
      'login',
      'console',
    ])
      expect(main, action).toMatch(new RegExp(`import\\("\\.\\./chunks/${action}-[A-Z0-9]+\\.js"\\)`));
  });
});

describe('toolwright audit --help', () => {
  it("states the reader's default limit (the help text holds its own copy, to load no reader)", async () => {
    let out = '';
    const code = await runCli(['audit', '--help'], { stdout: (text) => void (out += text), stderr: () => {} });
    expect(code).toBe(0);
    expect(out).toContain(`(default ${DEFAULT_QUERY_LIMIT})`);
  });
});

function staticGraph(entry: string, seen = new Set<string>()): string[] {
  if (seen.has(entry)) return [...seen];
  seen.add(entry);
  for (const [, from, bare] of readFileSync(entry, 'utf8').matchAll(/^import\s[^;]*?from\s+"([^"]+)"|^import\s+"([^"]+)"/gm)) {
    const spec = from ?? bare;
    if (spec.startsWith('.')) staticGraph(resolve(dirname(entry), spec), seen);
  }
  return [...seen];
}

function packagesImported(files: string[]): string[] {
  const names = new Set<string>();
  for (const file of files)
    for (const [, from, bare] of readFileSync(file, 'utf8').matchAll(/^import\s[^;]*?from\s+"([^"]+)"|^import\s+"([^"]+)"/gm)) {
      const spec = from ?? bare;
      if (!spec.startsWith('.') && !spec.startsWith('node:')) names.add(spec);
    }
  return [...names].sort();
}
