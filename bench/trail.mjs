#!/usr/bin/env node
// The audit trail's cost per record, in-process (issue 33: the default trail at or under 2 µs of
// CPU a record; the batched SQLite insert costs ~5): each sink takes records the way a server
// hands them over, a turn of `--turn` records recorded at once and their promises awaited (the
// answers wait for them), and the process's CPU time (user + system, every thread: the group
// commits' write and fdatasync run on libuv's pool) is divided by the records. The cost of making
// the records and awaiting them is measured on a sink that keeps nothing and subtracted.
//   node bench/trail.mjs                        # 200,000 records per sink, turns of 16
//   node bench/trail.mjs --records 5000         # smoke
// The trail's cost inside a served call is the bench's "server CPU per record" goal row
// (`toolwright-jsonl` − `toolwright-noaudit`, see bench/README.md); this isolates the sink.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { JsonlTrailSink, SqliteAuditSink } from '../dist/index.js';

function parseArgs(argv) {
  const o = { records: 200_000, turn: 16, reps: 3 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = Number(argv[++i]);
    if (flag === '--records') o.records = value;
    else if (flag === '--turn') o.turn = value;
    else if (flag === '--reps') o.reps = value;
    else throw new Error(`unknown option ${flag} (--records N, --turn N, --reps N)`);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} must be a positive integer`);
  }
  return o;
}

/** A record as a served calculate_sum call makes it. */
function record(i) {
  return {
    time: new Date().toISOString(),
    era: 'modern',
    protocolVersion: '2026-07-28',
    principal: null,
    tool: 'calculate_sum',
    argumentsJson: `{"a":${i},"b":2}`,
    status: 'ok',
    isError: false,
    durationMs: 0.04,
    correlationId: null,
    requestId: i,
    clientName: 'toolwright-bench',
    errorCode: null,
  };
}

/** CPU µs and wall ms for `records` records through `sink`, in turns. */
async function drive(sink, { records, turn }) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < records; i += turn) {
    const pending = [];
    for (let j = i; j < Math.min(i + turn, records); j++) pending.push(sink.record(record(j)));
    sink.flush?.();
    await Promise.all(pending);
  }
  const cpu = process.cpuUsage(cpu0);
  return { cpuUs: cpu.user + cpu.system, wallMs: performance.now() - t0 };
}

const opts = parseArgs(process.argv.slice(2));
const dir = mkdtempSync(join(tmpdir(), 'toolwright-bench-trail-'));
const sinks = {
  'nothing kept (the harness itself)': () => ({ record: () => undefined }),
  'JSON lines, fdatasync within 1 s (the default without better-sqlite3)': (n) => new JsonlTrailSink(join(dir, `t${n}.jsonl`)),
  "JSON lines, fdatasync per group ({ fsync: 'group' })": (n) => new JsonlTrailSink(join(dir, `g${n}.jsonl`), { fsync: 'group' }),
  'JSON lines, no fsync ({ fsync: false })': (n) => new JsonlTrailSink(join(dir, `n${n}.jsonl`), { fsync: false }),
  'SQLite, batched (the default with better-sqlite3)': (n) => new SqliteAuditSink(join(dir, `s${n}.db`), { retention: false }),
};
const results = {};
try {
  // Warm-up: each sink's code JIT-compiled before it is measured.
  for (const make of Object.values(sinks)) await drive(make('warm'), { records: Math.min(opts.records, 20_000), turn: opts.turn });
  for (let rep = 0; rep < opts.reps; rep++) {
    for (const [name, make] of Object.entries(sinks)) {
      const sink = make(rep);
      (results[name] ??= []).push(await drive(sink, opts));
      sink.close?.();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const floor = med(results['nothing kept (the harness itself)'].map((r) => r.cpuUs)) / opts.records;
console.log(
  `Audit trail cost per record: ${opts.records.toLocaleString('en-US')} records per sink in turns of ${opts.turn}, median of ${opts.reps} (Node ${process.versions.node})\n`,
);
console.log('| sink | CPU µs/record (harness subtracted) | records/s |');
console.log('|---|--:|--:|');
for (const [name, runs] of Object.entries(results)) {
  const cpu = med(runs.map((r) => r.cpuUs)) / opts.records;
  const perSecond = opts.records / (med(runs.map((r) => r.wallMs)) / 1000);
  console.log(
    `| ${name} | ${name.startsWith('nothing') ? `(${cpu.toFixed(2)})` : (cpu - floor).toFixed(2)} | ${Math.round(perSecond).toLocaleString('en-US')} |`,
  );
}
console.log('\nGoal (issue 33): the default trail ≤ 2 µs of CPU a record.');
