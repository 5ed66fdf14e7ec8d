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
  const slots = new Map<string, number>();
  return {
    name: 'toolwright-dev-packages',
    setup(build) {
      build.onResolve({ filter: /^[^.]/ }, async (args) => {
        if (args.kind !== 'import-statement' || args.namespace !== 'file' || args.pluginData === ASKING || isBuiltin(args.path)) return undefined;
        // What esbuild makes of it first: a tsconfig `paths` alias or a `#` import of a project file is bundled.
        const { kind, importer, resolveDir } = args;
        const found = await build.resolve(args.path, { kind, importer, resolveDir, pluginData: ASKING });
        if (found.errors.length || !found.external) return undefined;
        // Resolved and imported here, where a failure is reported at the import's place.
        try {
          const url = (await resolverFor(resolveDir))(args.path);
          if (!slots.has(url)) slots.set(url, imports.namespaces.push((await import(url)) as Record<string, unknown>) - 1);
          return { path: url, namespace: PACKAGE_NAMESPACE };
        } catch (err) {
          // Node names the module it resolved for (the helper): the place of the import says which file it is.
          const message = err instanceof Error ? err.message : String(err);
          return { errors: [{ text: `could not import ${JSON.stringify(args.path)}: ${message.replace(/ imported from .*$/s, '')}` }] };
        }
      });
      build.onLoad({ filter: /.*/, namespace: PACKAGE_NAMESPACE }, (args) => {
        const slot = slots.get(args.path)!;
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
 * `import.meta.resolve` as a module in `folder` has it: a one-line module written there,
 * imported, and deleted (Node resolves a specifier only for a module's own URL: the parent
 * argument of import.meta.resolve needs --experimental-import-meta-resolve). One per folder for
 * the life of the process, whatever the number of reloads.
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
    // Never through a link or over a file someone placed there: removed first, then created anew (wx).
    await rm(file, { force: true });
    await writeFile(file, 'export const resolve = (specifier) => import.meta.resolve(specifier);\n', { mode: 0o600, flag: 'wx' });
    return ((await import(pathToFileURL(file).href)) as { resolve: Resolve }).resolve;
  } finally {
    await rm(file, { force: true });
  }
}
