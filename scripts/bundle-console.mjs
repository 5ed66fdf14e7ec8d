#!/usr/bin/env node
// Builds the console's front end (src/console/ui/, Preact) ahead of time into dist/console/:
// index.html, app.js and app.css, minified, with nothing loaded from the network at run time.
// Prints each file's size, raw and gzipped, and writes them to dist/console/sizes.json (the
// README and docs/console.md report them; a test keeps the bundle under its budget).
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ui = join(root, 'src', 'console', 'ui');
const out = join(root, 'dist', 'console');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: join(ui, 'main.tsx') },
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  tsconfig: join(ui, 'tsconfig.json'),
  legalComments: 'none',
  loader: { '.css': 'css' },
  logLevel: 'warning',
});
copyFileSync(join(ui, 'index.html'), join(out, 'index.html'));

const sizes = {};
for (const file of ['index.html', 'app.js', 'app.css']) {
  const path = join(out, file);
  if (!existsSync(path)) continue;
  const bytes = readFileSync(path);
  sizes[file] = { bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}
writeFileSync(join(out, 'sizes.json'), `${JSON.stringify(sizes, null, 2)}\n`);
const total = Object.values(sizes).reduce((sum, s) => sum + s.gzip, 0);
console.log(
  `bundled the console into dist/console/: ${(total / 1024).toFixed(1)} KiB gzipped (${Object.entries(sizes)
    .map(([f, s]) => `${f} ${(s.gzip / 1024).toFixed(1)}`)
    .join(', ')})`,
);
