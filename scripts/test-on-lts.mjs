#!/usr/bin/env node
// CI's second test leg: the vitest suite once more, under the newest Node.js LTS (the first leg,
// `npm test`, runs under the floor's Node that the machine has). docs/install.md says why the
// whole suite and not a part of it.
//   node scripts/test-on-lts.mjs                      # the whole vitest suite (CI)
//   node scripts/test-on-lts.mjs test/audit test/cli  # some files, as vitest takes them
// Needs `npm run build` first (the CLI and runtime tests run dist/), like `npm test`. Installs the
// LTS (and better-sqlite3 built for it) into .cache/runtimes/ when it is not there.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES } from '../test/runtimes/runtimes.mjs';
import { failureTail, tailMessage } from './failure-tail-reporter.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lts = RUNTIMES['node-lts'];

// install.mjs is quick when both are there (it checks the sqlite build too).
const install = spawnSync(process.execPath, [join(root, 'test/runtimes/install.mjs'), 'node-lts'], { stdio: 'inherit' });
if (install.status !== 0) process.exit(install.status ?? 1);

const version = spawnSync(lts.binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`\n> vitest under Node ${version} (the newest LTS; ${lts.spec})\n`);
if (!existsSync(join(root, 'dist/cli/main.js'))) {
  console.error('the suite runs the built CLI: run `npm run build` first');
  process.exit(1);
}

// The LTS's directory first on the PATH: every `node` a test or a CLI starts is this one (as is
// process.execPath, which most of them use). The preload points better-sqlite3 at its build for
// this Node's ABI in every one of those processes.
const preload = `--require=${join(root, 'scripts/node-lts/register.cjs')}`;
const env = {
  ...process.env,
  PATH: `${dirname(lts.binary)}${delimiter}${process.env.PATH ?? ''}`,
  NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' '),
  // test/runtimes/node-lts.test.ts checks the leg runs under this major, and skips outside it.
  TOOLWRIGHT_TEST_NODE_MAJOR: version.replace(/^v/, '').split('.')[0],
};
const vitest = join(root, 'node_modules/vitest/vitest.mjs');
// As in `npm test`: a failed test runs once more, and what failed is repeated last.
const tail = failureTail();
const run = spawnSync(lts.binary, [vitest, 'run', ...tail.args, ...process.argv.slice(2)], { cwd: root, env: { ...env, ...tail.env }, stdio: 'inherit' });
const message = tailMessage(`vitest under Node ${version}`, run.status ?? 1, tail.read());
if (message) console.log(message);
process.exit(run.status ?? 1);
