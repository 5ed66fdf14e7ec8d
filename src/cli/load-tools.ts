import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolServer } from '../server/server.js';
import type { Tool } from '../server/tool.js';
import { packageInstalled } from '../runtime/optional-package.js';
import { UsageError } from './errors.js';
import { describeLoadError } from './module-load-error.js';
import { resolveOwnNameToSelf } from './self-resolve.js';

export const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);
export const JAVASCRIPT = new Set(['.js', '.mjs', '.cjs']);

/** A tools module exports its tools, or a function that gets the server (to change tools at run time). */
export type ToolsExport = Tool[] | ((server: ToolServer) => Tool[] | Promise<Tool[]>);

/**
 * Loads `--tools <module>`: its default export (or a `tools` export) is an
 * array of tools (plain objects are fine) or a function of the server that
 * returns them. TypeScript modules go through tsx's loader (an optional peer
 * dependency: `npm install tsx`), so no build step is needed.
 */
export async function loadToolsModule(spec: string): Promise<ToolsExport> {
  const mod = await importUserModule(spec, '--tools', 'tools');
  const tools = pickTools(mod);
  if (!tools) throw new UsageError(`${spec} must export an array of tools (export default [ ... ]) or a function (server) => tools`);
  return tools;
}

/**
 * Imports a module of the user's (tools, middleware): .js/.mjs/.cjs, or
 * TypeScript through tsx; a missing file or a failing import is a UsageError
 * that says which (`option` names where it was given, `what` what it holds).
 */
export async function importUserModule(spec: string, option: string, what: string): Promise<Record<string, unknown>> {
  const file = resolve(spec);
  const ext = extname(file).toLowerCase();
  if (!TYPESCRIPT.has(ext) && !JAVASCRIPT.has(ext)) throw new UsageError(`${option} expects a .js, .mjs or .ts module, got ${JSON.stringify(spec)}`);
  if (!existsSync(file)) throw new UsageError(`${what} module not found: ${spec}`);
  const url = pathToFileURL(file).href;
  // tsx is an optional peer dependency: a TypeScript module without it stops start-up naming the fix.
  if (TYPESCRIPT.has(ext) && !packageInstalled('tsx'))
    throw new UsageError(
      `${spec} is TypeScript: loading it needs the "tsx" package, which is not installed: run \`npm install tsx\` in the project that runs toolwright (or give ${option} a compiled .js module)`,
    );
  try {
    if (TYPESCRIPT.has(ext)) await registerTsx();
    // After tsx's hooks, so these wrap them: `import 'toolwright'` works with no install beside the module.
    await resolveOwnNameToSelf(file, { loaderThreadRunning: TYPESCRIPT.has(ext) });
    return (await import(url)) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`could not load ${spec}: ${await describeLoadError(err, file)}`);
  }
}

let tsxRegistered: Promise<void> | undefined;

/**
 * Registers tsx's ESM and CommonJS hooks for the rest of the process, once.
 * Not tsImport: its scoped loader hands a TypeScript file that is CommonJS by
 * its package.json (no "type": "module") to Node as a `data:text/javascript,…`
 * URL, so every stack frame of the user's handlers was that 2 KB URL instead of
 * their file. Registered hooks load it from its path (frames name the file, at
 * the lines of its source).
 */
function registerTsx(): Promise<void> {
  tsxRegistered ??= (async () => {
    const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
    esm.register();
    cjs.register();
  })();
  return tsxRegistered;
}

export function pickTools(mod: Record<string, unknown>): ToolsExport | undefined {
  // Interop may wrap the default export once more (CommonJS compiled modules).
  const candidates = [mod.default, (mod.default as Record<string, unknown> | undefined)?.default, mod.tools];
  return candidates.find((c): c is ToolsExport => Array.isArray(c) || typeof c === 'function');
}

/** The tools of a loaded module, calling its factory with the server when it is one. */
export async function resolveTools(loaded: ToolsExport, server: ToolServer): Promise<Tool[]> {
  const tools = typeof loaded === 'function' ? await loaded(server) : loaded;
  if (!Array.isArray(tools)) throw new UsageError('the tools factory must return an array of tools');
  return tools;
}
