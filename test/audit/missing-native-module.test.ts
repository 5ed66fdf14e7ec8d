import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedTempDir } from '../helpers/temp.js';

// What an install whose better-sqlite3 install script did not run looks like (npm 11 warns
// about unapproved install scripts; a coming npm skips them): the package is there, its
// build/ folder is not. The built CLI (dist/, `npm run build` first) runs from a copy of the
// package whose node_modules links every dependency but that one, copied without build/.
const root = new URL('../../', import.meta.url).pathname;
let pkg: string;
let work: string;

beforeAll(() => {
  const temp = sharedTempDir('toolwright-no-native-');
  pkg = join(temp.dir, 'pkg');
  work = join(temp.dir, 'work');
  mkdirSync(work);
  for (const entry of ['package.json', 'dist', 'schema']) cpSync(join(root, entry), join(pkg, entry), { recursive: true });
  mkdirSync(join(pkg, 'node_modules'));
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name === 'better-sqlite3' || name.startsWith('.')) continue;
    symlinkSync(join(root, 'node_modules', name), join(pkg, 'node_modules', name));
  }
  for (const entry of ['package.json', 'lib'])
    cpSync(join(root, 'node_modules', 'better-sqlite3', entry), join(pkg, 'node_modules', 'better-sqlite3', entry), { recursive: true });
  return temp.remove;
});

/** Runs the built CLI with an empty, closed stdin (a stdio server that did start ends at once, exit 0). */
async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'silent' };
  delete env.TOOLWRIGHT_AUDIT_DIR;
  const child = spawn(process.execPath, [join(pkg, 'dist', 'cli', 'main.js'), ...args], { cwd: work, env });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe("toolwright without better-sqlite3's native module", () => {
  it('serve refuses to start, says why and how to fix it, and exits 1 (never a failure on the first call)', async () => {
    const { code, stderr } = await cli(['serve', '--stdio']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^toolwright: the SQLite audit trail needs better-sqlite3's native module, which is not built\. /);
    expect(stderr).toContain('npm rebuild better-sqlite3');
    expect(stderr).toContain('npm install-scripts approve better-sqlite3');
    expect(stderr).toContain('server.audit: false');
    expect(stderr.trim().split('\n')).toHaveLength(1); // one line: no stack trace
    expect(stderr).not.toContain(pkg); // no absolute path
  });

  it('a server whose config turns the SQLite trail off starts as before', async () => {
    const config = join(work, 'off.json');
    writeFileSync(config, JSON.stringify({ server: { audit: false }, toolsets: { math: {} } }));
    // stdin is empty: a server that started ends when it closes, with exit 0.
    const { code, stderr } = await cli(['serve', '--stdio', '--config', config]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: `toolwright: state in ${join(work, '.toolwright')}; audit trail: off\n` });
  });

  it('audit and audit prune say the same, exit 1', async () => {
    for (const args of [
      ['audit', '--db', join(root, 'package.json')],
      ['audit', 'prune', '--db', join(root, 'package.json'), '--older-than', '1d'],
    ]) {
      const { code, stderr } = await cli(args);
      expect(code).toBe(1);
      expect(stderr).toMatch(/^toolwright: the SQLite audit trail needs better-sqlite3's native module, which is not built\. /);
    }
  });
});
