#!/usr/bin/env node
// Instructions per request (tools/call; or prompts/get and resources/read doing the same work), counted by valgrind's callgrind: a measure of CPU work that does
// not drift with the machine. Calls/s on this machine move by tens of percent from minute to
// minute; these counts repeat within about 1%, so a change worth 2% can be seen. It counts
// instructions only (not syscalls, cache misses or waiting): use it to compare two builds of
// the code, and `npm run bench` for what users see.
// Usage: npm run build && npm run bench:instructions [-- options]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HELP = `npm run bench:instructions -- [options]

  --era modern|legacy         protocol era of the calls (default modern)
  --audit sqlite|off          the default SQLite audit trail, or none (default sqlite)
  --scenario sum|structured|prompt|resource|strings
                              calculate_sum, or a 9 KiB structuredContent result; or the same
                              work as sum through prompts/get (prompt "sum") or resources/read
                              (template sum://{a}/{b}); or strings: tools/call with the prompt's
                              arguments, two strings (default sum)
  --transport stdio|http|fetch
                              the stdio transport through in-memory streams, or HTTP on 127.0.0.1 with
                              16 keep-alive connections in the same process, modern era only, its
                              client's work counted too; or fetch: the same endpoint's web-standard
                              face on Hono's Node adapter (default stdio)
  --calls N                   calls in all; the second half is measured (default 24000; structured 6000)
  --reps R                    runs, each reported (default 1)

Needs valgrind (Debian: apt-get install valgrind). One run of the default takes about a minute.`;

const here = dirname(fileURLToPath(import.meta.url));
const opts = { era: 'modern', audit: 'sqlite', scenario: 'sum', transport: 'stdio', calls: undefined, reps: 1 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const flag = argv[i];
  const value = () => argv[++i];
  if (flag === '--era') opts.era = value();
  else if (flag === '--audit') opts.audit = value();
  else if (flag === '--scenario') opts.scenario = value();
  else if (flag === '--transport') opts.transport = value();
  else if (flag === '--calls') opts.calls = Number(value());
  else if (flag === '--reps') opts.reps = Number(value());
  else if (flag === '-h' || flag === '--help') {
    console.log(HELP);
    process.exit(0);
  } else {
    console.error(`unknown option ${flag}\n\n${HELP}`);
    process.exit(2);
  }
}
const allowed = {
  era: ['modern', 'legacy'],
  audit: ['sqlite', 'off'],
  scenario: ['sum', 'structured', 'prompt', 'resource', 'strings'],
  transport: ['stdio', 'http', 'fetch'],
};
for (const [key, values] of Object.entries(allowed)) {
  if (!values.includes(opts[key])) {
    console.error(`--${key} must be one of ${values.join(', ')}`);
    process.exit(2);
  }
}
if (opts.transport !== 'stdio' && (opts.era !== 'modern' || !['sum', 'structured'].includes(opts.scenario))) {
  console.error('--transport http and fetch drive the modern era, scenarios sum and structured');
  process.exit(2);
}
opts.calls ??= opts.scenario === 'structured' ? 6000 : 24000;
if (!Number.isInteger(opts.calls) || opts.calls < 64 || opts.calls % 2 !== 0) {
  console.error('--calls must be an even integer of at least 64');
  process.exit(2);
}
if (!Number.isInteger(opts.reps) || opts.reps < 1) {
  console.error('--reps must be a positive integer');
  process.exit(2);
}
try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind was not found; install it (Debian: apt-get install valgrind)');
  process.exit(2);
}

/** Instructions per call of the server's thread over the measured half of one run, and of its other busy threads over the whole run. */
function measure() {
  const dir = mkdtempSync(join(os.tmpdir(), 'toolwright-callgrind-'));
  try {
    const out = join(dir, 'callgrind.out');
    const run = spawnSync(
      'valgrind',
      [
        '--tool=callgrind',
        `--callgrind-out-file=${out}`,
        // A dump at each os.getPriority() call: the second one holds the measured half alone.
        '--dump-before=uv_os_getpriority',
        // V8 writes code at run time; callgrind must see it change.
        '--smc-check=all-non-file',
        // Each thread counted apart: the server's thread (1) is the figure; the audit writer
        // thread's work is reported beside it (over the whole run: only thread 1 dumps by parts).
        '--separate-threads=yes',
        // One thread: V8's background compilers would otherwise run beside the measured work.
        process.execPath,
        '--single-threaded',
        // The driver collects all garbage a quarter in (see there).
        '--expose-gc',
        join(here, 'lib', 'instructions-driver.mjs'),
        String(opts.calls),
        opts.era,
        opts.audit,
        opts.scenario,
        opts.transport,
      ],
      { encoding: 'utf8' },
    );
    if (run.status !== 0)
      throw new Error(
        `the driver failed (exit ${run.status}):\n${(run.stderr ?? '')
          .split('\n')
          .filter((l) => !l.startsWith('=='))
          .join('\n')
          .trim()}`,
      );
    const totalOf = (file) => {
      const totals = /^(?:summary|totals):\s+(\d+)/m.exec(readFileSync(file, 'utf8'));
      if (!totals) throw new Error(`callgrind wrote no totals in ${file}`);
      return Number(totals[1]);
    };
    const main = totalOf(`${out}.2-01`) / (opts.calls / 2);
    // Other threads: V8's and libuv's are idle under --single-threaded; a busy one is the audit writer.
    const others = readdirSync(dir)
      .filter((f) => /^callgrind\.out-(\d+)$/.test(f) && f !== 'callgrind.out-01')
      .map((f) => totalOf(join(dir, f)))
      .filter((n) => n > 1_000_000);
    return { main, others: others.reduce((a, b) => a + b, 0) / opts.calls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const METHOD = { prompt: 'prompts/get', resource: 'resources/read' };
console.log(
  `instructions per ${METHOD[opts.scenario] ?? 'tools/call'} on the server's thread: ${opts.scenario}, ${opts.transport}, ${opts.era} era, audit ${opts.audit}, calls ${opts.calls / 2 + 1}–${opts.calls} of ${opts.calls} measured`,
);
const results = [];
for (let rep = 1; rep <= opts.reps; rep++) {
  const { main, others } = measure();
  results.push(main);
  const fmt = (n) => Math.round(n).toLocaleString('en-US');
  console.log(`run ${rep}: ${fmt(main)}${others ? ` (other threads: ${fmt(others)} per call over the whole run, start-up included)` : ''}`);
}
if (results.length > 1) {
  const spread = (Math.max(...results) - Math.min(...results)) / Math.min(...results);
  console.log(`spread ${(spread * 100).toFixed(1)}%`);
}
