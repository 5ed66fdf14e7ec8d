#!/usr/bin/env node
// Gateway benchmark (issue 32's goals; reported, never a test):
//   sum:      calculate_sum over HTTP through a gateway in front of a toolwright upstream, against
//             the same upstream called directly: p50 latency ≤ 1.3× direct, throughput ≥ 0.7× direct.
//             Twice: the upstream a process of its own over HTTP (two HTTP hops, three processes on
//             the machine's cores), and the upstream's ToolServer mounted in the gateway's process.
//   list1000: a full tools/list of 1,000 tools from a gateway (its listing is the upstream's tools
//             as registered: served from cache) against a toolwright server listing its own 1,000:
//             ≤ 1.2× the local listing's p50.
// Each repetition starts fresh processes; goals are judged on the median of the per-repetition ratios.
// Usage: npm run build && npm run bench:gateway [-- --reps N --duration S --warmup S --conc N --quick]
import { HttpChannel } from './lib/http-channel.mjs';
import { runCell } from './lib/load.mjs';
import { killAll, spawnTarget, waitForPort } from './lib/procs.mjs';
import { median } from './lib/stats.mjs';
import { makeWorkload } from './lib/workloads.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const quick = args.includes('--quick');
const reps = option('reps', quick ? 1 : 5);
const durationMs = option('duration', quick ? 0.4 : 2) * 1000;
const warmupMs = option('warmup', quick ? 0.2 : 0.5) * 1000;
const conc = option('conc', 16);
// Modern-era requests (no session handshake); the gateway speaks the upstream's era to it.
const era = 'modern';

/**
 * One cell against a fresh upstream: `via` 'direct' (the upstream itself), 'http' (a gateway in
 * front of it over HTTP) or 'inproc' (a gateway with the upstream's server mounted in its process).
 */
async function cell(kind, toolCount, via) {
  const procs = [];
  try {
    let port;
    let pid;
    if (via === 'inproc') {
      const gateway = spawnTarget('toolwright-gateway.mjs', 'http', toolCount, [], { BENCH_UPSTREAM: 'inproc' });
      procs.push(gateway);
      port = await waitForPort(gateway);
      pid = gateway.pid;
    } else {
      const upstream = spawnTarget('toolwright.mjs', 'http', toolCount);
      procs.push(upstream);
      port = await waitForPort(upstream);
      pid = upstream.pid;
      if (via === 'http') {
        const gateway = spawnTarget('toolwright-gateway.mjs', 'http', toolCount, [], { BENCH_UPSTREAM_URL: `http://127.0.0.1:${port}/mcp` });
        procs.push(gateway);
        port = await waitForPort(gateway);
        pid = [gateway.pid, upstream.pid];
      }
    }
    const channel = new HttpChannel(port);
    const workload = makeWorkload(kind, { era, newline: false, toolCount });
    const result = await runCell({ channel, workload, conc: kind === 'list' ? 1 : conc, warmupMs, durationMs, pid });
    channel.close();
    if (result.error) throw new Error(`${kind} ${via}: ${result.error}`);
    return result;
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
}

const rows = [];
for (const [kind, toolCount, label, via] of [
  ['sum', 2, `calculate_sum, ${conc} in flight`, 'http'],
  ['sum', 2, `calculate_sum, ${conc} in flight, upstream mounted in process`, 'inproc'],
  ['list', 1000, 'tools/list of 1,000 tools, every page (gateway: from cache)', 'http'],
]) {
  const ratios = { p50: [], ops: [] };
  for (let r = 0; r < reps; r++) {
    const direct = await cell(kind, toolCount, 'direct');
    const through = await cell(kind, toolCount, via);
    ratios.p50.push(through.p50 / direct.p50);
    ratios.ops.push(through.opsPerSec / direct.opsPerSec);
    console.log(
      `${era} ${label} rep ${r + 1}: direct p50 ${direct.p50.toFixed(2)} ms, ${direct.opsPerSec.toFixed(0)}/s (${direct.ops} ops); gateway p50 ${through.p50.toFixed(2)} ms, ${through.opsPerSec.toFixed(0)}/s (${through.ops} ops)`,
    );
  }
  rows.push({ era, kind, label, p50: median(ratios.p50), ops: median(ratios.ops) });
}
killAll();
console.log('\nGoals (median of per-repetition ratios, gateway ÷ direct):');
for (const row of rows) {
  const goals =
    row.kind === 'sum'
      ? [
          `p50 ${row.p50.toFixed(2)}× (goal ≤ 1.3×) ${row.p50 <= 1.3 ? '✓' : '✗'}`,
          `throughput ${row.ops.toFixed(2)}× (goal ≥ 0.7×) ${row.ops >= 0.7 ? '✓' : '✗'}`,
        ]
      : [`p50 ${row.p50.toFixed(2)}× (goal ≤ 1.2×) ${row.p50 <= 1.2 ? '✓' : '✗'}`];
  console.log(`  ${row.era} ${row.label}: ${goals.join(', ')}${reps < 5 ? ' (fewer than 5 repetitions: indicative only)' : ''}`);
}
