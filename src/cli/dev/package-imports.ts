import { rm, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

/** The free name a reloaded bundle reads its packages and its `import.meta` from (module-eval.ts binds it). */
export const GENERATION_SCOPE = '__toolwrightDev';

/** What one generation's bundle imports from outside the project: package namespaces, by the index its code uses. */
export interface PackageImports {
  namespaces: Record<string, unknown>[];
}

/** The esbuild namespace of a package's module in the bundle (its path is the package's resolved URL). */
export const PACKAGE_NAMESPACE = 'toolwright-package';

/** Marks the plugin's own question to esbuild (build.resolve runs the plugins again). */
const ASKING = Symbol('asking esbuild');

/**
 * An esbuild plugin for a bundle evaluated as CommonJS: each package a project file imports with
 * an `import` statement is imported as Node imports it (ES module resolution from the importing
 * file's folder, the `import` condition, the process's hooks: `toolwright` without an install
 * beside the module still resolves), once per process, and its namespace handed to the bundle.
 * esbuild's own CommonJS output would `require()` it instead: an ES-only package then fails on
 * Node before 20.19, and a default import of an ES module package would get its namespace (esbuild's
 * node-mode interop), not its default export. The package is a module of the bundle that
 * re-exports the namespace's names, so a name the package does not export is a build error with
 * the importing file's line, as Node's link error is. `require()` and `import()` of packages stay
 * as they are (Node runs them, from the entry's folder).
 */
export function packageImportsPlugin(imports: PackageImports): Plugin {
  const index = new Map<string, number>();
  return {
    name: 'toolwright-dev-packages',
    setup(build) {
      build.onResolve({ filter: /^[^.]/ }, async (args) => {
        if (args.kind !== 'import-statement' || args.namespace !== 'file' || args.pluginData === ASKING || isBuiltin(args.path)) return undefined;
        // What esbuild makes of it first: a tsconfig `paths` alias or a `#` import of a project file is bundled.
        const { kind, importer, resolveDir } = args;
        const found = await build.resolve(args.path, { kind, importer, resolveDir, pluginData: ASKING });
        if (found.errors.length || !found.external) return undefined;
        const resolve = await resolverFor(resolveDir);
        try {
          return { path: resolve(args.path), namespace: PACKAGE_NAMESPACE };
        } catch (err) {
          // Node names the module it resolved for (the helper): the place of the import says which file it is.
          return { errors: [{ text: (err as Error).message.replace(/ imported from .*$/s, '') }] };
        }
      });
      build.onLoad({ filter: /.*/, namespace: PACKAGE_NAMESPACE }, async (args) => {
        let slot = index.get(args.path);
        if (slot === undefined) {
          slot = imports.namespaces.push((await import(args.path)) as Record<string, unknown>) - 1;
          index.set(args.path, slot);
        }
        return { contents: reexports(imports.namespaces[slot]!, slot), loader: 'js' };
      });
    },
  };
}

/** A module exporting every name of the namespace at `slot` (default included), as the bundle reads it. */
function reexports(namespace: Record<string, unknown>, slot: number): string {
  const names = Object.keys(namespace);
  const lines = [`const ns = ${GENERATION_SCOPE}.packages[${slot}];`, ...names.map((name, i) => `const $${i} = ns[${JSON.stringify(name)}];`)];
  if (names.length) lines.push(`export { ${names.map((name, i) => `$${i} as ${JSON.stringify(name)}`).join(', ')} };`);
  return lines.join('\n');
}

export type Resolve = (specifier: string) => string;
const resolvers = new Map<string, Promise<Resolve>>();

/**
 * `import.meta.resolve` as a module in `folder` has it: a two-line module written there under a
 * name used once, imported, and deleted (Node resolves an import from a module's URL; it has no
 * public way to resolve one for another parent before Node 20.8's flagged second argument). One
 * per folder for the life of the process, whatever the number of reloads.
 */
export function resolverFor(folder: string): Promise<Resolve> {
  let resolver = resolvers.get(folder);
  if (!resolver) {
    resolver = resolverIn(folder);
    resolvers.set(folder, resolver);
    // A folder that could not be written to is tried again on the next reload.
    resolver.catch(() => resolvers.delete(folder));
  }
  return resolver;
}

async function resolverIn(folder: string): Promise<Resolve> {
  const file = join(folder, `.toolwright-dev-${process.pid}-resolve.mjs`);
  try {
    await writeFile(file, 'export const resolve = (specifier) => import.meta.resolve(specifier);\n', { mode: 0o600 });
    return ((await import(pathToFileURL(file).href)) as { resolve: Resolve }).resolve;
  } finally {
    await rm(file, { force: true });
  }
}
