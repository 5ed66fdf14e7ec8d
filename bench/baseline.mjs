#!/usr/bin/env node
// Makes a built copy of another commit for the toolwright-base target, then prints the run that
// compares it with this build side by side (issue 31: calculate_sum calls/s against d2219cf,
// stdio window 16 and HTTP 16 connections, targets interleaved, 5 repetitions).
// Usage: node bench/baseline.mjs [commit] [--dir DIR]   (default d2219cf, in the temp dir)
// The copy is `git archive` of the commit (no worktree is registered), with this checkout's
// node_modules linked in; a copy already built is reused.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const dirAt = argv.indexOf('--dir');
const dirFlag = dirAt === -1 ? undefined : argv.splice(dirAt, 2)[1];
const commit = argv[0] ?? 'd2219cf';
if (commit.startsWith('-')) throw new Error(`not a commit: ${commit}`);
const sha = execFileSync('git', ['-C', root, 'rev-parse', '--verify', `${commit}^{commit}`], { encoding: 'utf8' }).trim();
const dir = resolve(dirFlag ?? join(os.tmpdir(), `toolwright-base-${sha.slice(0, 10)}`));

if (existsSync(join(dir, 'dist', 'index.js'))) console.error(`reusing the build in ${dir}`);
else {
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync('git', ['-C', root, 'archive', sha], { maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${sha} failed: ${archive.stderr}`);
  execFileSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (!existsSync(join(dir, 'node_modules'))) symlinkSync(realpathSync(join(root, 'node_modules')), join(dir, 'node_modules'), 'dir');
  console.error(`building ${sha.slice(0, 10)} in ${dir} …`);
  execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
}
console.log(`TOOLWRIGHT_BENCH_BASE=${dir} npm run bench -- --targets toolwright-modern,toolwright-base --scenarios sum@16 --reps 5`);
