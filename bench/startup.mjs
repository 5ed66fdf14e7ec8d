#!/usr/bin/env node
// Start-up to the first tools/list answer (issue 33: at or below the build before the light
// install), this checkout's build against a baseline commit's, over stdio:
//   - library: a ToolServer with two tools served by serveStdio (targets/startup-library.mjs)
//   - cli:     `toolwright serve --stdio` (its default toolsets)
// each with its default audit trail in a fresh folder. Each run spawns a fresh process, writes
// one tools/list (2026-07-28, `_meta` on the request) and stops the clock at its answer; the
// two builds alternate run by run, so the machine's drift falls on both.
//   node bench/startup.mjs                     # baselines ddc1007 and d2219cf, 30 runs each
//   node bench/startup.mjs --baseline <ref>[,<ref>…] --runs 10
// ddc1007 is the commit issue 33 was filed at (its "today": the 124 MB install, the fake socket
// under the fetch face); d2219cf, before middleware, tracing and the Caller (issue 31's baseline),
// is shown beside it. The goal is judged against the first.
// The baseline is built once into .cache/bench-baseline/<commit>/ (git archive, this checkout's
// node_modules, its own `npm run build`). Run `npm run build` first for this checkout's dist/.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median } from './lib/stats.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MODERN_LIST = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'toolwright-bench', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
})}\n`;

function parseArgs(argv) {
  const o = { baselines: ['ddc1007', 'd2219cf'], runs: 30 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--baseline') o.baselines = String(argv[++i]).split(',').filter(Boolean);
    else if (argv[i] === '--runs') o.runs = Number(argv[++i]);
    else if (argv[i] === '--help' || argv[i] === '-h') {
      console.log('node bench/startup.mjs [--baseline <git ref>[,<git ref>…] (default ddc1007,d2219cf)] [--runs N (default 30)]');
      process.exit(0);
    } else throw new Error(`unknown option ${argv[i]} (see --help)`);
  }
  if (!Number.isInteger(o.runs) || o.runs < 1) throw new Error('--runs must be a positive integer');
  if (o.baselines.length === 0) throw new Error('--baseline needs at least one git ref');
  return o;
}

/** The baseline's dist/, built once from `git archive` of the ref with this checkout's node_modules. */
function baselineDist(ref) {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = join(ROOT, '.cache', 'bench-baseline', commit);
  const dist = join(dir, 'dist');
  if (existsSync(join(dist, 'cli', 'main.js'))) return { commit, dist };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tar = execFileSync('git', ['archive', '--format=tar', commit], { cwd: ROOT, maxBuffer: 512 * 2 ** 20 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  console.log(`building the baseline ${commit.slice(0, 7)} in ${dir} …`);
  execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  return { commit, dist };
}

/** One start: spawn → the answer to tools/list, in ms. */
function startOnce(args) {
  const work = mkdtempSync(join(tmpdir(), 'toolwright-bench-startup-'));
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: work,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NODE_ENV: 'production', TOOLWRIGHT_AUDIT_DIR: work, XDG_STATE_HOME: join(work, 'state'), TOOLWRIGHT_LOG_LEVEL: 'silent' },
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => finish(new Error('no tools/list answer within 30 s')), 30_000);
    const finish = (error, ms) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      child.once('exit', () => rmSync(work, { recursive: true, force: true }));
      if (error) reject(new Error(`${error.message}\n${err.slice(-1000)}`));
      else resolve(ms);
    };
    child.stdout.on('data', (chunk) => {
      out += chunk;
      for (const line of out.split('\n').slice(0, -1)) {
        const msg = JSON.parse(line);
        if (msg.id !== 1) continue;
        if (!Array.isArray(msg.result?.tools)) return finish(new Error(`tools/list failed: ${line.slice(0, 300)}`));
        return finish(undefined, performance.now() - t0);
      }
    });
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('exit', (code) => finish(new Error(`exited (${code}) before answering`)));
    child.stdin.on('error', () => {});
    child.stdin.write(MODERN_LIST);
  });
}

const opts = parseArgs(process.argv.slice(2));
const current = join(ROOT, 'dist');
if (!existsSync(join(current, 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
const bases = opts.baselines.map((ref) => baselineDist(ref));
const ownCommit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
const builds = [
  ...bases.map((base) => ({ name: `baseline ${base.commit.slice(0, 7)}`, dist: base.dist })),
  { name: `this checkout ${ownCommit}`, dist: current },
];
const baseBuilds = builds.slice(0, -1);
const kinds = {
  library: (dist) => [join(ROOT, 'bench/targets/startup-library.mjs'), dist],
  cli: (dist) => [join(dist, 'cli/main.js'), 'serve', '--stdio'],
};
const times = {};
for (const kind of Object.keys(kinds)) for (const build of builds) times[`${kind}|${build.name}`] = [];
// One unrecorded start of each warms the file cache.
for (const kind of Object.keys(kinds)) for (const build of builds) await startOnce(kinds[kind](build.dist));
for (let run = 0; run < opts.runs; run++) {
  for (const kind of Object.keys(kinds)) {
    // Alternate the order of the builds.
    for (const build of run % 2 ? [...builds].reverse() : builds) times[`${kind}|${build.name}`].push(await startOnce(kinds[kind](build.dist)));
  }
}

const fmt = (x) => x.toFixed(1);
const lines = [
  `Start-up to the first tools/list, stdio, ${opts.runs} runs each (Node ${process.versions.node}, ${new Date().toISOString().slice(0, 16)} UTC)`,
  '',
  `| server | build | median ms | min–max ms | ${baseBuilds.map((b) => `÷ ${b.name.replace('baseline ', '')}`).join(' | ')} |`,
  `|---|---|--:|--:|${baseBuilds.map(() => '--:|').join('')}`,
];
for (const kind of Object.keys(kinds)) {
  const baseMedians = baseBuilds.map((b) => median(times[`${kind}|${b.name}`]));
  for (const build of builds) {
    const list = times[`${kind}|${build.name}`];
    const m = median(list);
    const ratios = baseMedians.map((bm) => `${(m / bm).toFixed(2)}×`).join(' | ');
    lines.push(`| ${kind} | ${build.name} | ${fmt(m)} | ${fmt(Math.min(...list))}–${fmt(Math.max(...list))} | ${ratios} |`);
  }
}
lines.push('', `Goal (issue 33): this checkout ÷ ${baseBuilds[0].name.replace('baseline ', '')} (the first baseline) ≤ 1.00× for both.`);
console.log(lines.join('\n'));
