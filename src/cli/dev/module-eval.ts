import * as nodeModule from 'node:module';
import { dirname } from 'node:path';
import { GENERATION_SCOPE, type PackageImports } from './package-imports.js';

/** The key of a module object under which its bundle finds what it reads through GENERATION_SCOPE. */
const SCOPE_KEY = Symbol.for('toolwright.dev.generation');

/**
 * The first line of a bundle evaluated by `evaluateCommonJs`: binds GENERATION_SCOPE for the
 * bundle's code, and ties the module object's life to the code's. Node keeps a CommonJS
 * module's source map in a WeakMap keyed by the module object, which nothing else holds once it
 * has run: a GC later, stack frames of its handlers named the generated file at bundle lines.
 * A function that refers to `module` makes V8 keep `module` in the bundle's top-level context,
 * which every function of the bundle holds: the source map lives as long as any of its code.
 */
export const GENERATION_BANNER = `var ${GENERATION_SCOPE} = module[Symbol.for(${JSON.stringify(SCOPE_KEY.description)})], ${GENERATION_SCOPE}Module = () => module;`;

/** What a bundle's `import.meta` is: the entry module's (every file of a bundle shares it). */
export interface ImportMeta {
  url: string;
  filename: string;
  dirname: string;
  resolve: (specifier: string) => string;
}

interface CompilableModule {
  exports: unknown;
  filename: string;
  paths: string[];
  loaded: boolean;
  _compile(content: string, filename: string): unknown;
  [SCOPE_KEY]?: { packages: PackageImports['namespaces']; meta: ImportMeta };
}

type ModuleClass = (new (id: string) => CompilableModule) & { _nodeModulePaths(folder: string): string[] };

/**
 * Runs a CommonJS bundle as a module of its own, the way Node runs a `.cjs` file (its compiler,
 * its `require` from the file's folder, `import()` by Node's loader from there, an inline source
 * map registered so stack frames name the project's files and lines) but never entered in
 * `require.cache`: once nothing refers to its exports, the module, its code and its source map
 * are garbage (Node keeps source maps of CommonJS modules in a WeakMap of the module). An ES
 * module is never freed (Node's module map keeps it for the life of the process), which is why
 * `toolwright dev` does not import each generation as one. `file` names no file on disk: it is
 * the generation's name in stack frames without source maps, and where `require` and `import()`
 * resolve from (put it in the entry's folder).
 */
export function evaluateCommonJs(code: string, file: string, imports: PackageImports, meta: ImportMeta): unknown {
  const Module = nodeModule.Module as unknown as ModuleClass;
  const module = new Module(file);
  module.filename = file;
  module.paths = Module._nodeModulePaths(dirname(file));
  module[SCOPE_KEY] = { packages: imports.namespaces, meta };
  try {
    module._compile(code, file);
  } finally {
    // Read once, by the bundle's first line: the module keeps no list of packages past its evaluation.
    delete module[SCOPE_KEY];
  }
  module.loaded = true;
  return module.exports;
}
