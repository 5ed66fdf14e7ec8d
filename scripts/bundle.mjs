#!/usr/bin/env node
// Bundles tsc's output in dist/ into one module per entry point plus shared chunks
// (dist/chunks/), with esbuild. Node 20 loads an ES module graph file by file — resolve,
// read, compile, link — and toolwright's ~60 modules were a quarter of a server's time to
// its first tools/list. Code splitting keeps one copy of each class across entry points
// (`instanceof ToolError` holds between `toolwright` and `toolwright/toolsets`), and
// packages stay external (loaded from node_modules, most of them only when first used).
// Type declarations (.d.ts) stay as tsc wrote them.
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const entries = ['index', 'http', 'middleware', 'client', 'client/core', 'testing', 'toolsets', 'config', 'gateway', 'cli/main'];

/**
 * esbuild puts each module in the chunk of the exact set of entry points that reach it, so the
 * server core (everything `index` reaches) came out as 11 chunks, one per set of entries
 * sharing a piece of it, and Node 20 pays ~1 ms per ES module file at start-up. Entries that
 * run a server anyway (and the HTTP transport, loaded on demand by serveHttp) import all of
 * `index` here (the gateway too, which the CLI loads on demand), so the core is one chunk (plus
 * one for what it shares with the client, which stays free of server code): `import 'toolwright'` loads 3 files instead of 12, ~8 ms sooner.
 */
/**
 * `toolwright/client/core` on Node reaches the same modules as `toolwright/client` (all but the
 * one that lets ToolClient start stdio servers), so that the two share their chunks instead of
 * splitting the client into more files, and share each class.
 */
const CLIENT_NODE_PARTS = ['./transports/stdio-client.js', './auth/file-token-store.js', './auth/loopback.js'];
const CLIENT_CORE = join(dist, 'client', 'core.js');
/**
 * The CLI's command definitions (cli/main) load at every start and import each command's action
 * module on demand (`await import` in src/cli/program.ts). The action modules, which run a server
 * or talk to one, reach the whole core as above, so the core stays in few chunks for them too.
 */
const CLI_ACTIONS = [
  'serve',
  'serve-console',
  'list',
  'doctor',
  'call',
  'run-collection',
  'interactive/connect-command',
  'console',
  'login',
  'task',
  'primitives-actions',
  'skills-action',
  'audit',
  'audit-prune',
  'auth-hash-key',
  'auth-rotate-key',
  'dev/dev-command',
];
const CORE_USERS = [
  'http',
  'middleware',
  'testing',
  'toolsets',
  'config',
  'gateway',
  'transports/http-server',
  'gateway/index',
  'gateway/search-catalog',
  'tracing/server-route',
  ...CLI_ACTIONS.map((a) => `cli/${a}`),
].map((e) => join(dist, `${e}.js`));
/**
 * Tracing is imported when an OpenTelemetry provider is first seen (tracing/lazy.ts): the server's
 * side by the core (as a CORE_USER above), the client's by the client. Reaching the whole client
 * as well, the client's side shares the client's chunks rather than cutting new ones out of them;
 * and both the core and the client still reach tracing/attributes.js (no OpenTelemetry code, what
 * both sides of tracing share with the core and the client), so that it stays in their shared chunk.
 */
const CLIENT_TRACING = join(dist, 'tracing', 'client.js');
const INDEX = join(dist, 'index.js');
const TRACING_SHARED = 'tracing/attributes.js';
const reachWholeCore = {
  name: 'reach-whole-core',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, ({ path }) => {
      if (path === INDEX) {
        return { contents: `${readFileSync(path, 'utf8')}\nimport './${TRACING_SHARED}';\n`, loader: 'js', resolveDir: dirname(path) };
      }
      if (path === CLIENT_TRACING) {
        return { contents: `${readFileSync(path, 'utf8')}\nimport '../client/core.js';\n`, loader: 'js', resolveDir: dirname(path) };
      }
      if (path === CLIENT_CORE) {
        const parts = [...CLIENT_NODE_PARTS, `../${TRACING_SHARED}`].map((p) => `import '${p}';`).join('\n');
        return { contents: `${readFileSync(path, 'utf8')}\n${parts}\n`, loader: 'js', resolveDir: dirname(path) };
      }
      if (!CORE_USERS.includes(path)) return undefined;
      const spec = relative(dirname(path), join(dist, 'index.js')).split(sep).join('/');
      const index = spec.startsWith('.') ? spec : `./${spec}`;
      return { contents: `${readFileSync(path, 'utf8')}\nimport '${index}';\n`, loader: 'js', resolveDir: dirname(path) };
    });
  },
};

/**
 * The command definitions read toolwright's version (runtime/package-files.js, which the core
 * uses too). Shared, that small module would be a chunk of its own on the core's path: cli/main
 * takes its own copy instead (it holds no class, and finds the same package.json), so that
 * `import 'toolwright'` still loads the core in 3 files.
 */
const PACKAGE_FILES = join(dist, 'runtime', 'package-files.js');
const DEFINITIONS = ['program', 'init'].map((m) => join(dist, 'cli', `${m}.js`));
const cliOwnPackageFiles = {
  name: 'cli-own-package-files',
  setup(build) {
    build.onResolve({ filter: /\/package-files\.js$/ }, ({ path, resolveDir, importer }) => {
      if (!DEFINITIONS.includes(importer) || join(resolveDir, path) !== PACKAGE_FILES) return undefined;
      return { path: PACKAGE_FILES, namespace: 'cli-copy' };
    });
    build.onLoad({ filter: /.*/, namespace: 'cli-copy' }, ({ path }) => ({ contents: readFileSync(path, 'utf8'), loader: 'js', resolveDir: dirname(path) }));
  },
};

/**
 * ipaddr.js is CommonJS. Node 20 imports a CommonJS module into an ES module by first scanning
 * its source for the names it exports (cjs-module-lexer, in JavaScript): over ipaddr.js's 38 KB
 * that loop gets hot enough for V8 to optimize it mid-run, which was 178M of the 799M
 * instructions a `toolwright serve` spent up to its first tools/list (a fifth of start-up, in
 * every process that loads the URL policy). It is bundled instead, as the ES module it would be:
 * its one UMD wrapper hands `ipaddr` to a local `module`, which is the default export (no
 * CommonJS shim, so no chunk of its own). Its MIT notice is kept with it.
 */
const IPADDR = createRequire(import.meta.url).resolve('ipaddr.js');
const UMD_TAIL = /\}\(this\)\);\s*$/;
const inlineIpaddr = {
  name: 'inline-ipaddr',
  setup(build) {
    build.onResolve({ filter: /^ipaddr\.js$/ }, () => ({ path: IPADDR, namespace: 'ipaddr-esm' }));
    build.onLoad({ filter: /.*/, namespace: 'ipaddr-esm' }, ({ path }) => {
      const source = readFileSync(path, 'utf8');
      if (!UMD_TAIL.test(source)) throw new Error(`${path} no longer ends in its UMD wrapper's }(this)); see scripts/bundle.mjs`);
      const notice = '/*! ipaddr.js, Copyright (C) 2011-2017 whitequark <whitequark@whitequark.org>, MIT License */';
      return {
        contents: `${notice}\nconst module = { exports: {} };\n${source.replace(UMD_TAIL, '}(undefined));')}\nexport default module.exports;\n`,
        loader: 'js',
      };
    });
  },
};

rmSync(join(dist, 'chunks'), { recursive: true, force: true });
await build({
  entryPoints: entries.map((e) => join(dist, `${e}.js`)),
  outdir: dist,
  outbase: dist,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true, // composed with tsc's maps: stack traces point into src/
  logLevel: 'warning',
  plugins: [reachWholeCore, cliOwnPackageFiles, inlineIpaddr],
});

/**
 * The client's runtime-neutral core as one file for any runtime with fetch and Web Crypto: what
 * bundlers take for `toolwright/client` and `toolwright/client/core` under the "browser" condition
 * (Node gets dist/client/core.js above, which shares its classes with `toolwright/client`). Built
 * from the sources, not from dist/ (which the build above rewrites). Ajv comes in by static imports
 * (schema/ajv-load-static.ts in place of the Node loader, which reads files with createRequire);
 * packages stay external for the application's bundler to resolve.
 */
const staticAjv = {
  name: 'static-ajv',
  setup(build) {
    build.onResolve({ filter: /\/ajv-load\.js$/ }, ({ path, resolveDir }) => ({ path: join(resolveDir, path.replace(/ajv-load\.js$/, 'ajv-load-static.ts')) }));
  },
};
const neutral = await build({
  entryPoints: [join(root, 'src', 'client', 'core.ts')],
  outfile: join(dist, 'client-core.js'),
  tsconfig: join(root, 'tsconfig.json'),
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  packages: 'external',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [staticAjv],
});
// `packages: 'external'` would let a Node built-in through unnoticed: the build fails instead.
const builtins = new Set(builtinModules);
for (const output of Object.values(neutral.metafile.outputs)) {
  const node = output.imports.filter((i) => i.path.startsWith('node:') || builtins.has(i.path.split('/')[0]));
  if (node.length) throw new Error(`the runtime-neutral client imports Node built-ins: ${node.map((i) => i.path).join(', ')}`);
}

// The package's bin. npm marks bin files executable when it installs a package, but a checkout
// builds dist/ after `npm install`: without this, `npx toolwright` there fails with "Permission denied".
chmodSync(join(dist, 'cli', 'main.js'), 0o755);
console.log(`bundled ${entries.length} entry points and the runtime-neutral client into dist/`);
