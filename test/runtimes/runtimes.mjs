// Where the runtime tests find Deno, Bun and workerd, and CI's second Node (the newest LTS), all
// installed by test/runtimes/install.mjs.
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The cache folder of one runtime's npm install. */
export function runtimeCacheDir(name) {
  return join(root, '.cache', 'runtimes', name);
}

const bin = (name, file) => join(runtimeCacheDir(name), 'node_modules', '.bin', file);

/**
 * Each runtime: the npm package (pinned major) and the executable it installs.
 * `node-lts` is the newest Node.js LTS line, for CI's second test run (scripts/test-on-lts.mjs):
 * Node 26, Active LTS since 2026-10-28 (docs/install.md says why this line).
 */
export const RUNTIMES = {
  deno: { spec: 'deno@^2', binary: bin('deno', 'deno') },
  bun: { spec: 'bun@^1', binary: bin('bun', 'bun') },
  workerd: { spec: 'workerd@^1', binary: bin('workerd', 'workerd') },
  'node-lts': { spec: 'node@^26', binary: bin('node-lts', 'node') },
};

/**
 * Where better-sqlite3, rebuilt for the Node.js of ABI `modules` (process.versions.modules),
 * lives: the project's own copy is built for the Node that installed it (the floor's), and a
 * native module loads only in the Node ABI it was built for. The folder is named as the package
 * is in any install (`…/abi<N>/better-sqlite3/`): what checks the modules a process loaded by
 * their path (test/package/startup-loads.test.ts) finds it under the LTS as anywhere else.
 */
export function sqliteBuildDir(modules) {
  return join(runtimeCacheDir('node-lts'), `abi${modules}`, 'better-sqlite3');
}
