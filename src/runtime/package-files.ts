import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Files of the toolwright package itself (its package.json, the published
 * config schema, build outputs), found from the package root rather than
 * relative to the calling module: the build bundles modules into chunks that
 * sit at other depths than their sources, so `new URL('../../x', import.meta.url)`
 * would point elsewhere. Looked up on first use, and an application that
 * bundles toolwright into its own file still loads (only what needs a file
 * of the package says it is missing).
 */
const here = dirname(fileURLToPath(import.meta.url));
let found: { root: string; version: string } | null | undefined;

function ownPackage(): { root: string; version: string } | null {
  if (found !== undefined) return found;
  for (let dir = here; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'toolwright') return (found = { root: dir, version: pkg.version ?? '0.0.0' });
    }
    if (dirname(dir) === dir) return (found = null);
  }
}

/** An absolute path inside the package, e.g. `packageFile('schema', 'x.json')`. */
export function packageFile(...segments: string[]): string {
  const pkg = ownPackage();
  if (!pkg) throw new Error(`toolwright: its package folder (with ${join(...segments)}) was not found above ${here}`);
  return join(pkg.root, ...segments);
}

/** toolwright's version, from its package.json. */
export function packageVersion(): string {
  return ownPackage()?.version ?? '0.0.0';
}

/** True when this code runs from the build (dist/), false when run from source (tests, tsx). */
export function runsFromBuild(): boolean {
  const pkg = ownPackage();
  return pkg !== null && (here + sep).startsWith(join(pkg.root, 'dist') + sep);
}
