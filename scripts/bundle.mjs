#!/usr/bin/env node
// Bundles tsc's output in dist/ into one module per entry point plus shared chunks
// (dist/chunks/), with esbuild. Node 20 loads an ES module graph file by file — resolve,
// read, compile, link — and toolwright's ~60 modules were a quarter of a server's time to
// its first tools/list. Code splitting keeps one copy of each class across entry points
// (`instanceof ToolError` holds between `toolwright` and `toolwright/toolsets`), and
// packages stay external (loaded from node_modules, most of them only when first used).
// Type declarations (.d.ts) stay as tsc wrote them.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const entries = ['index', 'client', 'testing', 'toolsets', 'config', 'cli/main'];

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
});
console.log(`bundled ${entries.length} entry points into dist/`);
