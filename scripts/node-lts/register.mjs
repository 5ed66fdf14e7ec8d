// Preloaded (NODE_OPTIONS=--import) by scripts/test-on-lts.mjs into every Node process of the LTS
// test run, the test workers and the CLIs and servers they start: the project's better-sqlite3
// resolves to its copy built for this Node's ABI (test/runtimes/node-lts-sqlite.mjs), since the
// project's own is built for the floor's Node and fails to load here. Only the project's own
// copy is redirected (a test that lays out an install of its own keeps it), and only where a
// build for this ABI exists (the floor's Node, or a runtime that reads NODE_OPTIONS but is not
// Node, are left alone).
import { existsSync, realpathSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sqliteBuildDir } from '../../test/runtimes/runtimes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const projectCopy = join(root, 'node_modules', 'better-sqlite3');
const build = sqliteBuildDir(process.versions.modules);
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
