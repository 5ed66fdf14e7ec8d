#!/usr/bin/env node
// `npm run size`: what `npm install <package>` costs a project, for toolwright (packed from this
// checkout: run `npm run build` first) beside the official SDK v2 server and fastmcp (issue 33's
// table). Each goes into an empty temporary project; the install is run once to warm npm's cache,
// then again into a fresh project and timed. A report, not a test: nothing here fails on a number.
//
//   node scripts/size.mjs [--json]
//
// Columns: node_modules size (the files' bytes), packages installed, seconds for the timed
// install, and the installed packages that run an install script (preinstall, install,
// postinstall, or a binding.gyp that npm builds with node-gyp).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const GOALS = { mb: 30, packages: 40, seconds: 20 };

async function packToolwright(into) {
  if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const { stdout } = await run(npm, ['pack', '--json', '--pack-destination', into], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout);
  return { file: join(into, packed.filename), version: packed.version, tarballBytes: packed.size };
}

function emptyProject() {
  const dir = mkdtempSync(join(tmpdir(), 'toolwright-size-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'size-probe', version: '1.0.0', private: true }));
  return dir;
}

async function install(spec) {
  const dir = emptyProject();
  const started = process.hrtime.bigint();
  try {
    await run(npm, ['install', spec, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { dir, seconds };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

function bytesUnder(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat || stat.isSymbolicLink()) return 0;
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const name of readdirSync(path)) total += bytesUnder(join(path, name));
  return total;
}

/** The installed packages (npm's hidden lock file lists each) and those that run an install script. */
function packagesOf(dir) {
  const lock = JSON.parse(readFileSync(join(dir, 'node_modules', '.package-lock.json'), 'utf8'));
  const paths = Object.keys(lock.packages).filter((path) => path.startsWith('node_modules/'));
  const scripts = [];
  for (const path of paths) {
    const manifest = JSON.parse(readFileSync(join(dir, path, 'package.json'), 'utf8'));
    const hooks = ['preinstall', 'install', 'postinstall'].filter((hook) => manifest.scripts?.[hook]);
    if (hooks.length === 0 && existsSync(join(dir, path, 'binding.gyp'))) hooks.push('node-gyp');
    if (hooks.length) scripts.push(`${manifest.name} (${hooks.join(', ')})`);
  }
  return { count: paths.length, scripts };
}

async function measure(label, spec) {
  // Warm the cache: the timed install below downloads nothing npm already has.
  const warm = await install(spec);
  rmSync(warm.dir, { recursive: true, force: true });
  const { dir, seconds } = await install(spec);
  try {
    const { count, scripts } = packagesOf(dir);
    const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies;
    return {
      label,
      spec: Object.entries(version).map(([n, v]) => `${n}@${v}`)[0],
      mb: bytesUnder(join(dir, 'node_modules')) / 1e6,
      packages: count,
      seconds,
      scripts,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function table(rows) {
  const lines = ['| package | node_modules | packages | time (warm cache) | install scripts |', '|---|--:|--:|--:|---|'];
  for (const r of rows) {
    lines.push(`| ${r.label} | ${r.mb.toFixed(1)} MB | ${r.packages} | ${r.seconds.toFixed(1)} s | ${r.scripts.length ? r.scripts.join(', ') : 'none'} |`);
  }
  return lines.join('\n');
}

const packDir = mkdtempSync(join(tmpdir(), 'toolwright-pack-'));
try {
  const packed = await packToolwright(packDir);
  const rows = [];
  rows.push(await measure('official SDK v2 server (`@modelcontextprotocol/server`)', '@modelcontextprotocol/server'));
  rows.push(await measure('fastmcp (punkpeye)', 'fastmcp'));
  rows.push(await measure(`toolwright ${packed.version} (from \`npm pack\`, ${(packed.tarballBytes / 1e6).toFixed(1)} MB packed)`, packed.file));
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else {
    process.stdout.write(`${table(rows)}\n\n`);
    const own = rows.at(-1);
    const verdict = (ok) => (ok ? 'met' : 'NOT met');
    process.stdout.write(
      `toolwright against the goals (≤ ${GOALS.mb} MB, ≤ ${GOALS.packages} packages, no install script, ≤ ${GOALS.seconds} s): ` +
        `size ${verdict(own.mb <= GOALS.mb)}, packages ${verdict(own.packages <= GOALS.packages)}, ` +
        `install scripts ${verdict(own.scripts.length === 0)}, time ${verdict(own.seconds <= GOALS.seconds)}\n` +
        `(node ${process.version}, npm ${(await run(npm, ['--version'])).stdout.trim()}, ${process.platform}-${process.arch}; the time depends on the machine and its load)\n`,
    );
  }
} finally {
  rmSync(packDir, { recursive: true, force: true });
}
