// Where the runtime tests find Deno, Bun and workerd (installed by test/runtimes/install.mjs).
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The cache folder of one runtime's npm install. */
export function runtimeCacheDir(name) {
  return join(root, '.cache', 'runtimes', name);
}

const bin = (name, file) => join(runtimeCacheDir(name), 'node_modules', '.bin', file);

/** Each runtime: the npm package (pinned major) and the executable it installs. */
export const RUNTIMES = {
  deno: { spec: 'deno@^2', binary: bin('deno', 'deno') },
  bun: { spec: 'bun@^1', binary: bin('bun', 'bun') },
  workerd: { spec: 'workerd@^1', binary: bin('workerd', 'workerd') },
};
