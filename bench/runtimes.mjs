#!/usr/bin/env node
// Issue 33's figures in one run (a quiet machine: ≈ 15 min; --quick: a smoke test of each part, ≈ 2 min):
//   1. HTTP calculate_sum at 16 connections: the Node adapter (serveHttp), the fetch face on
//      Node (Hono's Node adapter), Deno (Deno.serve) and Bun (Bun.serve); and calculate_sum on
//      both transports with the JSON-lines trail, the SQLite trail and none, against raw:
//      bench/run.mjs, results in bench/results/ as for any bench run, goals in its Goals table.
//   2. Start-up to the first tools/list against the baseline build (bench/startup.mjs).
//   3. The audit trail's CPU per record, in-process (bench/trail.mjs).
// Deno and Bun come from `node test/runtimes/install.mjs deno bun`. Run `npm run build` first.
//   node bench/runtimes.mjs [--quick]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const quick = process.argv.includes('--quick');
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const TARGETS = 'toolwright-modern,toolwright-fetch,toolwright-deno,toolwright-bun,toolwright-jsonl,toolwright-noaudit,raw';
const steps = [
  [here('run.mjs'), '--targets', TARGETS, '--scenarios', 'sum@16', ...(quick ? ['--quick', '--no-save'] : [])],
  [here('startup.mjs'), '--runs', quick ? '2' : '30'],
  [here('trail.mjs'), ...(quick ? ['--records', '5000', '--reps', '1'] : [])],
];
let failed = false;
for (const args of steps) {
  console.log(`\n> node ${args.map((a) => a.replace(`${here('..')}`, '')).join(' ')}\n`);
  const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
  failed ||= run.status !== 0;
}
process.exit(failed ? 1 : 0);
