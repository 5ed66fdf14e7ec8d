import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolServer } from '../../server/server.js';
import type { Tool } from '../../server/tool.js';
import { packageInstalled } from '../../runtime/optional-package.js';
import { UsageError } from '../errors.js';
import { JAVASCRIPT, pickTools, resolveTools, TYPESCRIPT } from '../load-tools.js';
import { describeLoadError, esbuildFromTsx, formatLocation, type SyntaxLocation } from '../module-load-error.js';
import { resolveOwnNameToSelf } from '../self-resolve.js';
import { evaluateCommonJs, GENERATION_BANNER } from './module-eval.js';
import { GENERATION_SCOPE, PACKAGE_NAMESPACE, type PackageImports, packageImportsPlugin, resolverFor } from './package-imports.js';

type Esbuild = typeof import('esbuild');

/** A tools module as one load saw it: its tools, and every file of the project it imported (to watch). */
export interface BundledTools {
  tools: Tool[];
  /** Absolute paths: the entry and what it imports, packages excluded. */
  files: string[];
}

/** Why a module could not be loaded, said as the terminal shows it (file:line:column, the line, a caret). */
export class ModuleLoadError extends Error {
  constructor(
    message: string,
    /** The file the error is in, when known (absolute). */
    readonly file?: string,
  ) {
    super(message);
    this.name = 'ModuleLoadError';
  }
}

let generation = 0;

/**
 * Loads a tools module as a fresh instance, whatever Node's module cache holds: esbuild bundles
 * the entry and every project file it imports (packages stay outside the bundle, so `toolwright`,
 * `zod` and the rest are the process's one copy and a `ToolError` is still the class the server
 * knows) into one CommonJS module, evaluated without entering any module cache (module-eval.ts):
 * once the server no longer refers to a generation's tools, the generation is garbage, so a
 * long session of edits does not grow the process. A module with top-level `await` (which
 * CommonJS cannot express) is imported as an ES module instead, as before: each such generation
 * stays in memory. esbuild's metafile says which files to watch. A syntax error is a
 * ModuleLoadError with file:line:column; types are the reloader's to check, with the project's
 * own TypeScript (typecheck.ts), before what this loaded is swapped in.
 */
export async function bundleToolsModule(spec: string, server: ToolServer): Promise<BundledTools> {
  const entry = checkedEntry(spec);
  const esbuild = loadEsbuild();
  // Before the build: its plugin resolves the packages the project imports, `toolwright` among them.
  await resolveOwnNameToSelf(entry);
  const { mod, files } = await loadGeneration(esbuild, entry);
  const exported = pickTools(mod);
  if (!exported) throw new ModuleLoadError(`${shown(entry)} must export an array of tools (export default [ ... ]) or a function (server) => tools`);
  try {
    return { tools: await resolveTools(exported, server), files };
  } catch (err) {
    throw new ModuleLoadError(`${shown(entry)}: ${(err as Error).message}`);
  }
}

/** One generation of the module: bundled as CommonJS and evaluated, or (top-level await) imported as an ES module. */
async function loadGeneration(esbuild: Esbuild, entry: string): Promise<{ mod: Record<string, unknown>; files: string[] }> {
  const name = `.toolwright-dev-${process.pid}-${++generation}-${basename(entry, extname(entry))}`;
  const imports: PackageImports = { namespaces: [] };
  const built = await build(esbuild, entry, imports);
  if (built === TOP_LEVEL_AWAIT) {
    const esm = await build(esbuild, entry);
    return { mod: await importEsm(esm.code, join(dirname(entry), `${name}.mjs`), entry), files: esm.files };
  }
  try {
    const meta = { url: pathToFileURL(entry).href, filename: entry, dirname: dirname(entry), resolve: await resolverFor(dirname(entry)) };
    const exports = evaluateCommonJs(built.code, join(dirname(entry), `${name}.cjs`), imports, meta);
    return { mod: asImported(exports), files: built.files };
  } catch (err) {
    throw new ModuleLoadError(`could not load ${shown(entry)}: ${await describeLoadError(err, entry)}`);
  }
}

/**
 * A CommonJS module's exports as `import()` would give them: an ES module's as they are
 * (esbuild marks them `__esModule`); a CommonJS entry's `module.exports` as the default export,
 * beside its properties.
 */
function asImported(exports: unknown): Record<string, unknown> {
  const object = typeof exports === 'object' && exports !== null ? (exports as Record<string, unknown>) : undefined;
  if (object?.__esModule) return object;
  return { ...object, default: exports };
}

/** A generation imported as an ES module: written beside the entry (so its imports resolve as the entry's would) under a name used once, imported, and deleted. */
async function importEsm(code: string, out: string, entry: string): Promise<Record<string, unknown>> {
  try {
    // Never through a link or over a file someone placed there: removed first, then created anew (wx).
    await rm(out, { force: true });
    await writeFile(out, code, { mode: 0o600, flag: 'wx' });
    return (await import(pathToFileURL(out).href)) as Record<string, unknown>;
  } catch (err) {
    throw new ModuleLoadError(`could not load ${shown(entry)}: ${await describeLoadError(err, entry)}`);
  } finally {
    // Imported (or failed): the module lives on in memory, the file is not needed.
    await rm(out, { force: true });
  }
}

function checkedEntry(spec: string): string {
  const file = resolve(spec);
  const ext = extname(file).toLowerCase();
  if (!TYPESCRIPT.has(ext) && !JAVASCRIPT.has(ext)) throw new UsageError(`--tools expects a .js, .mjs or .ts module, got ${JSON.stringify(spec)}`);
  if (!existsSync(file)) throw new ModuleLoadError(`tools module not found: ${spec}`);
  return file;
}

let esbuildModule: Esbuild | undefined;

/** esbuild comes with tsx (the optional peer dependency TypeScript modules already need). */
function loadEsbuild(): Esbuild {
  if (esbuildModule) return esbuildModule;
  if (!packageInstalled('tsx'))
    throw new UsageError(
      'toolwright dev reloads modules with esbuild, which comes with the "tsx" package: run `npm install --save-dev tsx` in the project that runs toolwright',
    );
  esbuildModule = esbuildFromTsx();
  return esbuildModule;
}

const TOP_LEVEL_AWAIT = Symbol('top-level await');
/** esbuild's refusal of top-level await in a CommonJS bundle (it has no way to express it). */
const TOP_LEVEL_AWAIT_ERROR = /^Top-level await is (?:currently )?not supported with the "cjs" output format/;

/** The bundle as CommonJS when `imports` is given (TOP_LEVEL_AWAIT when the module needs ESM), else as an ES module. */
async function build(esbuild: Esbuild, entry: string, imports: PackageImports): Promise<Built | typeof TOP_LEVEL_AWAIT>;
async function build(esbuild: Esbuild, entry: string): Promise<Built>;
async function build(esbuild: Esbuild, entry: string, imports?: PackageImports): Promise<Built | typeof TOP_LEVEL_AWAIT> {
  try {
    const result = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      platform: 'node',
      format: imports ? 'cjs' : 'esm',
      target: 'node20',
      packages: 'external',
      metafile: true,
      // Stack frames of a handler name the source file and line.
      sourcemap: 'inline',
      sourcesContent: false,
      logLevel: 'silent',
      absWorkingDir: dirname(entry),
      define: {
        // A CommonJS-style module's __dirname and __filename are the entry's, as they were under tsx.
        __dirname: JSON.stringify(dirname(entry)),
        __filename: JSON.stringify(entry),
        // CommonJS has no import.meta: the bundle's is the entry module's (module-eval.ts).
        ...(imports ? { 'import.meta': `${GENERATION_SCOPE}.meta` } : {}),
      },
      ...(imports ? { plugins: [packageImportsPlugin(imports)], banner: { js: GENERATION_BANNER } } : {}),
    });
    process.setSourceMapsEnabled(true);
    const inputs = result.metafile.inputs;
    const files = Object.keys(inputs)
      .filter((input) => !input.startsWith(`${PACKAGE_NAMESPACE}:`))
      .map((input) => (isAbsolute(input) ? input : resolve(dirname(entry), input)))
      .filter((file) => !file.split(sep).includes('node_modules'));
    const code = result.outputFiles[0]!.text;
    // An ES module is strict code: so is its bundle, unless a file of it is CommonJS (sloppy by default).
    const strict = imports && Object.values(inputs).every((input) => input.format !== 'cjs');
    return { code: strict ? `"use strict";${code}` : code, files };
  } catch (err) {
    const errors = (err as { errors?: EsbuildMessage[] }).errors ?? [];
    if (imports && errors.length && errors.every((e) => TOP_LEVEL_AWAIT_ERROR.test(e.text))) return TOP_LEVEL_AWAIT;
    const place = placeOf(err, entry);
    throw new ModuleLoadError(place ? formatLocation(place) : `could not load ${shown(entry)}: ${firstLine(err)}`, place?.file);
  }
}

interface Built {
  code: string;
  files: string[];
}

type EsbuildMessage = { text: string; location?: { file: string; line: number; column: number } | null };

/** The first error esbuild placed (file, 1-based line and column), if any. */
function placeOf(err: unknown, entry: string): SyntaxLocation | undefined {
  const errors = (err as { errors?: EsbuildMessage[] }).errors ?? [];
  const first = errors.find((e) => e.location);
  if (!first?.location) return undefined;
  const file = isAbsolute(first.location.file) ? first.location.file : resolve(dirname(entry), first.location.file);
  return { file, line: first.location.line, column: first.location.column + 1, text: first.text };
}

function firstLine(err: unknown): string {
  const errors = (err as { errors?: EsbuildMessage[] }).errors;
  if (errors?.[0]) return errors[0].text;
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

/** A path as the terminal shows it: relative to the working directory when inside it. */
export function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith(`..${sep}`) && rel !== '..' ? rel : path;
}
