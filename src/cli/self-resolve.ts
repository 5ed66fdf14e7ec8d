import { readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { pathToFileURL } from 'node:url';
import { packageFile } from '../runtime/package-files.js';

/** `toolwright` and its subpaths (`toolwright/http`, `toolwright/toolsets`, …). */
const OWN_NAME = /^toolwright(?:\/|$)/;

/**
 * The ESM resolve hook for Node without module.registerHooks (module.register runs it on the
 * loader thread, so it is source text):
 * resolve as usual, and only when that finds no `toolwright` for the importing module, resolve
 * it as the running CLI's package resolves its own name (the package's "exports").
 */
const ESM_HOOK = `
const OWN_NAME = ${OWN_NAME};
let self;
export function initialize(data) { self = data.self; }
export async function resolve(specifier, context, next) {
  if (!OWN_NAME.test(specifier)) return next(specifier, context);
  try {
    return await next(specifier, context);
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    return next(specifier, { ...context, parentURL: self });
  }
}
`;

type ResolveFilename = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;

let commonJsFallbackInstalled = false;
let esmFallbackRegistered = false;
let preloaded: Promise<void> | undefined;
/** True while installedBeside asks whether the module has a toolwright of its own. */
let checking = false;

/**
 * A tools or middleware module that imports `toolwright` loads even where toolwright is not
 * installed beside it (a lone tools.ts a desktop client points the CLI at): the import then
 * resolves to the running CLI's own package. A folder, or one above it, with its own
 * node_modules/toolwright keeps that one: this is only the fallback when resolution fails.
 * Both module systems: the ESM resolve hook (registerEsmFallback), and CommonJS
 * resolution, which tsx uses for a .ts file outside an ES module package (no "type": "module"
 * near it) and which module.register's hooks do not reach on Node 20. Call after tsx registers
 * its own hooks, so these wrap them.
 */
export async function resolveOwnNameToSelf(moduleFile: string, { loaderThreadRunning = false } = {}): Promise<void> {
  let manifest: string;
  try {
    manifest = packageFile('package.json');
  } catch {
    return; // bundled into an application: there is no package to point at
  }
  const own = nodeModule.createRequire(manifest);
  if (!commonJsFallbackInstalled) {
    commonJsFallbackInstalled = true;
    fallBackInCommonJs(own);
  }
  const beside = installedBeside(moduleFile);
  // On Node 20 the ESM fallback needs module.register, whose loader thread every later import of
  // the process then goes through (a third of `serve --tools x.js`'s start-up here): it is
  // registered only where it can be needed, for a module that finds no toolwright of its own, or
  // is free, where the hooks run in the thread or tsx already started a loader thread. The cost of
  // that: a module that has its toolwright, importing a file outside its project that has none,
  // fails to load on Node 20 as it would under plain Node.
  if (!esmFallbackRegistered && (!beside || loaderThreadRunning || hasInThreadHooks())) {
    esmFallbackRegistered = true;
    registerEsmFallback(pathToFileURL(manifest).href);
  }
  if (!beside) await (preloaded ??= preloadOwnEntries(manifest, own));
}

function hasInThreadHooks(): boolean {
  return typeof (nodeModule as unknown as { registerHooks?: RegisterHooks }).registerHooks === 'function';
}

/** Node 22.15+'s synchronous, in-thread hooks (not in Node 20's types). */
type RegisterHooks = (hooks: {
  resolve: (specifier: string, context: { parentURL?: string }, next: (specifier: string, context: { parentURL?: string }) => unknown) => unknown;
}) => void;

/**
 * The ESM fallback, through module.registerHooks where Node has it: Node 26 deprecates
 * module.register (DEP0205, a warning on stderr at every `serve --tools`), and the in-thread hook
 * needs no loader thread. module.register (Node 20.6+) where it does not.
 */
function registerEsmFallback(self: string): void {
  const registerHooks = (nodeModule as unknown as { registerHooks?: RegisterHooks }).registerHooks;
  if (typeof registerHooks === 'function') {
    registerHooks({
      resolve(specifier, context, next) {
        if (!OWN_NAME.test(specifier)) return next(specifier, context);
        try {
          return next(specifier, context);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException | undefined)?.code;
          if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw err;
          return next(specifier, { ...context, parentURL: self });
        }
      },
    });
  } else if (typeof nodeModule.register === 'function') {
    nodeModule.register(`data:text/javascript,${encodeURIComponent(ESM_HOOK)}`, { data: { self } });
  }
}

/** Whether `toolwright` resolves for the module as it stands (its folder or one above has it), the fallback aside. */
function installedBeside(moduleFile: string): boolean {
  checking = true;
  try {
    nodeModule.createRequire(moduleFile).resolve('toolwright');
    return true;
  } catch {
    return false;
  } finally {
    checking = false;
  }
}

/**
 * Wraps CommonJS resolution (the seam tsx itself hooks) so that `require('toolwright…')` that
 * finds nothing resolves as the CLI's package resolves its own name.
 */
export function fallBackInCommonJs(own: NodeJS.Require): void {
  const Module = nodeModule.Module as unknown as { _resolveFilename?: ResolveFilename };
  const resolveFilename = Module._resolveFilename;
  if (typeof resolveFilename !== 'function') return;
  // Set while the fallback resolves: `own.resolve` comes back through this very wrapper, and
  // where the CLI's own package cannot resolve the name either (a checkout not built yet), that
  // failure is the answer, not another fallback (which recursed until the stack overflowed).
  let fallingBack = false;
  Module._resolveFilename = function (this: unknown, request, parent, isMain, options) {
    try {
      return resolveFilename.call(this, request, parent, isMain, options);
    } catch (err) {
      if (checking || fallingBack || !OWN_NAME.test(request) || (err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
      fallingBack = true;
      try {
        return own.resolve(request);
      } finally {
        fallingBack = false;
      }
    }
  };
}

/**
 * The package's entry points, imported as the ES modules the CLI itself runs and put in
 * require.cache under their files: a CommonJS `require('toolwright')` then gets these very
 * modules. Loaded by require, tsx would compile them again into second copies, and a
 * `ToolError` the tool throws would not be the class the server knows (an "internal error"
 * instead of the tool's message). Only for a module with no toolwright of its own.
 */
async function preloadOwnEntries(manifest: string, own: NodeJS.Require): Promise<void> {
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, unknown> };
  const subpaths = Object.keys(exports ?? {}).filter((key) => !key.endsWith('.json'));
  await Promise.all(
    subpaths.map(async (subpath) => {
      const file = own.resolve(`toolwright${subpath.slice(1)}`);
      if (own.cache[file]) return;
      const entry = new nodeModule.Module(file);
      entry.filename = file;
      entry.exports = await import(pathToFileURL(file).href);
      entry.loaded = true;
      own.cache[file] = entry;
    }),
  );
}
