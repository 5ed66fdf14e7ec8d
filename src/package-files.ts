import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Files of the toolwright package itself (its package.json, the published
 * config schema, build outputs), found from the package root rather than
 * relative to the calling module: the build bundles modules into chunks that
 * sit at other depths than their sources, so `new URL('../../x', import.meta.url)`
 * would point elsewhere.
 */
const here = dirname(fileURLToPath(import.meta.url));
const found = findPackage(here);

/** The folder holding toolwright's package.json. */
export const PACKAGE_ROOT = found.root;
export const PACKAGE_VERSION = found.version;

/** An absolute path inside the package, e.g. `packageFile('schema', 'x.json')`. */
export function packageFile(...segments: string[]): string {
  return join(PACKAGE_ROOT, ...segments);
}

/** True when this code runs from the build (dist/), false when run from source (tests, tsx). */
export const RUNS_FROM_BUILD = (here + sep).startsWith(join(PACKAGE_ROOT, 'dist') + sep);

function findPackage(start: string): { root: string; version: string } {
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'toolwright') return { root: dir, version: pkg.version ?? '0.0.0' };
    }
    if (dirname(dir) === dir) throw new Error(`toolwright: no package.json of toolwright above ${start}`);
  }
}
