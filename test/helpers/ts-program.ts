import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Set by test/helpers/global-setup.ts for the run (and removed after it); a file run some other way gets its own. */
const outDir = process.env.TOOLWRIGHT_TEST_BUNDLES ?? join(root, '.test-cache', `bundles-${process.pid}`);
const built = new Map<string, string>();

/**
 * The arguments after `node` that run a TypeScript program of the tests (a fixture server, a
 * script that imports src/) from the current sources: the file and the sources it imports,
 * bundled by esbuild into one ES module, once per run. `node --import tsx <file>` did the same
 * through tsx's loader hooks, module by module, for 1–2 s of CPU per process start; the bundle
 * starts in a quarter of that. Packages stay external (loaded from node_modules), and the bundle
 * lies inside the repository, so they resolve, and src/ finds the package root, as from source.
 */
export function tsProgram(file: string): string[] {
  return [bundled(file)];
}

function bundled(file: string): string {
  const known = built.get(file);
  if (known) return known;
  const name = `${basename(file).replace(/\.[cm]?tsx?$/, '')}-${hash(file)}.mjs`;
  const outfile = join(outDir, name);
  // The other worker may have bundled it already this run; a bundle appears whole (renamed into place).
  if (!existsSync(outfile)) {
    mkdirSync(outDir, { recursive: true });
    const partial = `${outfile}.${process.pid}.tmp`;
    buildSync({
      entryPoints: [file],
      outfile: partial,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
    });
    renameSync(partial, outfile);
  }
  built.set(file, outfile);
  return outfile;
}

function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(36);
}
