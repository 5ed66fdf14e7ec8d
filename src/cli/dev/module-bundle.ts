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
 * the entry and every project file it imports (packages stay imports, so `toolwright`, `zod` and
 * the rest are the process's one copy and a `ToolError` is still the class the server knows)
 * into one ES module, written beside the entry (so its imports resolve as the entry's would) under
 * a name used once, imported, and deleted. esbuild's metafile says which files to watch. A
 * syntax error is a ModuleLoadError with file:line:column; types are not checked (tsc per
 * change is seconds, not milliseconds: run `tsc --noEmit --watch` beside it for that).
 */
export async function bundleToolsModule(spec: string, server: ToolServer): Promise<BundledTools> {
  const entry = checkedEntry(spec);
  const esbuild = loadEsbuild();
  const built = await build(esbuild, entry);
  const out = join(dirname(entry), `.toolwright-dev-${process.pid}-${++generation}-${basename(entry, extname(entry))}.mjs`);
  let mod: Record<string, unknown>;
  try {
    await writeFile(out, built.code, { mode: 0o600 });
    await resolveOwnNameToSelf(entry);
    mod = (await import(pathToFileURL(out).href)) as Record<string, unknown>;
  } catch (err) {
    throw new ModuleLoadError(`could not load ${shown(entry)}: ${await describeLoadError(err, entry)}`);
  } finally {
    // Imported (or failed): the module lives on in memory, the file is not needed.
    await rm(out, { force: true });
  }
  const exported = pickTools(mod);
  if (!exported) throw new ModuleLoadError(`${shown(entry)} must export an array of tools (export default [ ... ]) or a function (server) => tools`);
  try {
    return { tools: await resolveTools(exported, server), files: built.files };
  } catch (err) {
    throw new ModuleLoadError(`${shown(entry)}: ${(err as Error).message}`);
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

async function build(esbuild: Esbuild, entry: string): Promise<{ code: string; files: string[] }> {
  try {
    const result = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      metafile: true,
      // Stack frames of a handler name the source file and line (tsx's loader enables source maps).
      sourcemap: 'inline',
      sourcesContent: false,
      logLevel: 'silent',
      absWorkingDir: dirname(entry),
      // A CommonJS-style module's __dirname and __filename are the entry's, as they were under tsx.
      define: { __dirname: JSON.stringify(dirname(entry)), __filename: JSON.stringify(entry) },
    });
    process.setSourceMapsEnabled(true);
    const files = Object.keys(result.metafile.inputs)
      .map((input) => (isAbsolute(input) ? input : resolve(dirname(entry), input)))
      .filter((file) => !file.split(sep).includes('node_modules'));
    return { code: result.outputFiles[0]!.text, files };
  } catch (err) {
    const place = placeOf(err, entry);
    throw new ModuleLoadError(place ? formatLocation(place) : `could not load ${shown(entry)}: ${firstLine(err)}`, place?.file);
  }
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
