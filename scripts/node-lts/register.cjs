// Preloaded (NODE_OPTIONS=--require) by scripts/test-on-lts.mjs into every Node process of the LTS
// test run, the test workers and the CLIs and servers they start: the project's better-sqlite3
// resolves to its copy built for this Node's ABI (test/runtimes/node-lts-sqlite.mjs), since the
// project's own is built for the floor's Node and fails to load here. Only the project's own
// copy is redirected (a test that lays out an install of its own keeps it), and only where a
// build for this ABI exists (the floor's Node, or a runtime that reads NODE_OPTIONS but is not
// Node, are left alone). CommonJS and no imports of the project's: it runs before every process
// of the run, and an ES module preload (--import) started the ESM loader first, ~0.1 s a process.
// It reaches a process only through its environment: a stdio client passes a server just a few
// safe variables (PATH, HOME, …) plus the `env` it is given, so a test that starts a toolwright
// server that way gives it test/helpers/temp.ts's auditEnv(), which carries NODE_OPTIONS (issue 33).
const { existsSync, realpathSync } = require('node:fs');
const nodeModule = require('node:module');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const root = join(__dirname, '..', '..');
const projectCopy = join(root, 'node_modules', 'better-sqlite3');
// Where test/runtimes/runtimes.mjs's sqliteBuildDir puts it.
const build = join(root, '.cache', 'runtimes', 'node-lts', `abi${process.versions.modules}`, 'better-sqlite3');
// registerHooks (Node 22.15+): synchronous hooks that both require() and import go through.
if (typeof nodeModule.registerHooks === 'function' && existsSync(build) && existsSync(projectCopy)) {
  // Resolution yields real paths (node_modules may be a link).
  const own = `${pathToFileURL(realpathSync(projectCopy)).href}/`;
  const rebuilt = `${pathToFileURL(build).href}/`;
  nodeModule.registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (!resolved.url?.startsWith(own)) return resolved;
      return { ...resolved, url: rebuilt + resolved.url.slice(own.length) };
    },
  });
}
