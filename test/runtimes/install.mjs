#!/usr/bin/env node
// Installs the other JavaScript runtimes the runtime tests run toolwright in (Deno 2, Bun,
// Cloudflare's workerd), and the newest Node.js LTS that CI runs the suite under a second time
// (scripts/test-on-lts.mjs), from the npm registry into .cache/runtimes/ (gitignored), once. They
// are no dependency of toolwright: a project that never runs these tests never downloads them.
//   node test/runtimes/install.mjs            # all of them
//   node test/runtimes/install.mjs deno bun   # some
// Prints each one's time and installed size.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildSqliteForNode } from './node-lts-sqlite.mjs';
import { RUNTIMES, runtimeCacheDir } from './runtimes.mjs';

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(RUNTIMES);
for (const name of wanted) {
  const runtime = RUNTIMES[name];
  if (!runtime) throw new Error(`unknown runtime ${name}; known: ${Object.keys(RUNTIMES).join(', ')}`);
  const prefix = runtimeCacheDir(name);
  if (existsSync(runtime.binary)) {
    console.log(`${name}: already installed (${runtime.binary})`);
  } else {
    mkdirSync(prefix, { recursive: true });
    const started = Date.now();
    // --prefix: its own folder, never the project's node_modules; scripts run (bun's links its
    // binary, node's installs the platform's package).
    execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', runtime.spec], { stdio: 'inherit' });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`${name}: ${runtime.spec} installed in ${seconds} s, ${(sizeOf(prefix) / 2 ** 20).toFixed(0)} MB`);
  }
  // The suite's SQLite tests need better-sqlite3's native module built for that Node's ABI.
  if (name === 'node-lts') buildSqliteForNode(runtime.binary);
}

function sizeOf(path) {
  // lstat: a link (node_modules/.bin) is not its target counted again.
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const entry of readdirSync(path)) total += sizeOf(join(path, entry));
  return total;
}
