#!/usr/bin/env node
// `toolwright dev`'s reloads (issue 35): how long from a tools module changed on disk to its new
// tool callable, and whether reloads under a steady load of calls lose or fail any call.
// Usage: npm run build && npm run bench:reload [-- --tools 50 --samples 30 --reloads 100 --callers 4]
// (BENCH_NODE_FLAGS="--max-old-space-size=64" runs toolwright dev with those node flags: is the growth collectible?)
// Starts `toolwright dev --tools <module of N tools>` in a temp folder, with an official SDK
// client (legacy, one session) and toolwright's client (2026-07-28) connected.
//  1. latency: `samples` times, the module is rewritten with one new tool; the time until a call
//     of that tool succeeds (polled every 2 ms) is recorded: p50, p95, max. Goal: p95 < 1 s.
//  2. under load: `callers` loops per client call the module's lasting tools back to back while
//     the module is rewritten `reloads` times (each waits until its new tool answers). Every call
//     must answer without error; the dev process's RSS (Linux /proc) and its heap after a
//     forced GC (bench/lib/heap-probe.mjs, preloaded) before and after.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { ToolClient } = await import(`${ROOT}dist/client.js`);
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const TOOLS = arg('tools', 50);
const SAMPLES = arg('samples', 30);
const RELOADS = arg('reloads', 100);
const CALLERS = arg('callers', 4);

/** A module of TOOLS lasting tools (`tool_0` …, each with a small schema) and one tool new to this generation. */
function toolsModule(generation) {
  const tools = Array.from(
    { length: TOOLS },
    (_, i) =>
      `  { name: 'tool_${i}', description: 'tool ${i}', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, handler: ({ n }: { n?: number }) => String((n ?? 0) + ${i}) },`,
  );
  tools.push(
    `  { name: 'fresh_${generation}', description: 'new in generation ${generation}', inputSchema: { type: 'object' }, handler: () => 'gen ${generation}' },`,
  );
  return `export default [\n${tools.join('\n')}\n];\n`;
}

const dir = mkdtempSync(join(tmpdir(), 'toolwright-bench-reload-'));
const moduleFile = join(dir, 'tools.ts');
writeFileSync(moduleFile, toolsModule(0));
// The default rate limit (1,200 calls a minute per caller) is a defence, not what is measured:
// the steady load goes past it, and its refusals would count as failed calls.
const configFile = join(dir, 'toolwright.config.json');
const unhit = { points: 1_000_000_000, durationSeconds: 1 };
writeFileSync(configFile, JSON.stringify({ server: { limits: { rateLimit: { perPrincipal: unhit, perTool: unhit } } } }));
const child = spawn(
  process.execPath,
  [
    ...(process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : []),
    '--expose-gc',
    '--import',
    pathToFileURL(`${ROOT}bench/lib/heap-probe.mjs`).href,
    `${ROOT}dist/cli/main.js`,
    'dev',
    '--tools',
    'tools.ts',
    '--config',
    'toolwright.config.json',
    '--port',
    '0',
    '--no-open',
  ],
  {
    cwd: dir,
    env: { ...process.env, TOOLWRIGHT_AUDIT_DIR: dir, XDG_STATE_HOME: dir },
    stdio: ['ignore', 'ignore', 'pipe'],
  },
);
let stderr = '';
child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
const url = await new Promise((resolve, reject) => {
  const timer = setInterval(() => {
    const match = /serving \d+ tool\(s\) on (http:\/\/\S+)/.exec(stderr);
    if (match && stderr.includes('toolwright dev: watching')) {
      clearInterval(timer);
      resolve(match[1]);
    }
  }, 20);
  child.once('exit', (code) => reject(new Error(`toolwright dev exited (${code}):\n${stderr}`)));
});

const sdk = new Client({ name: 'bench-legacy', version: '1.0.0' });
await sdk.connect(new StreamableHTTPClientTransport(new URL(url)));
const modern = await ToolClient.connect({ url }, { era: 'modern', onToolsListChanged: () => {} });
const callSdk = async (name, args) => {
  const result = await sdk.callTool({ name, arguments: args });
  if (result.isError) throw new Error(result.content?.[0]?.text ?? 'isError');
  return result;
};
const callModern = async (name, args) => {
  const result = await modern.callTool(name, args);
  if (result.isError) throw new Error(result.content?.[0]?.text ?? 'isError');
  return result;
};

let generation = 0;
/** Rewrites the module with a new tool and resolves with the ms until that tool answered. */
async function reloadOnce() {
  generation++;
  const name = `fresh_${generation}`;
  const started = performance.now();
  writeFileSync(moduleFile, toolsModule(generation));
  for (;;) {
    try {
      await callSdk(name, {});
      return performance.now() - started;
    } catch {
      await new Promise((r) => setTimeout(r, 2));
    }
  }
}

const rssKib = () => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]);
  } catch {
    return Number.NaN;
  }
};
/** The dev process's heap in use after a full GC, in KiB (heap-probe.mjs answers SIGUSR2 on stderr). */
async function heapAfterGcKib() {
  const seen = stderr.match(/HEAP-AFTER-GC \d+/g)?.length ?? 0;
  child.kill('SIGUSR2');
  for (;;) {
    const all = [...stderr.matchAll(/HEAP-AFTER-GC (\d+)/g)];
    if (all.length > seen) return Number(all.at(-1)[1]) / 1024;
    await new Promise((r) => setTimeout(r, 10));
  }
}
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

try {
  const latencies = [];
  for (let i = 0; i < SAMPLES; i++) latencies.push(await reloadOnce());
  const ms = (x) => `${x.toFixed(0)} ms`;
  // What the server itself spent per reload (bundle, import, check, swap), as it printed it.
  const spent = [...stderr.matchAll(/reloaded tools\.ts \(\d+ tools\) in (\d+) ms/g)].map((m) => Number(m[1]));
  console.log(
    `reload, change on disk to new tool callable (${TOOLS + 1} tools, ${SAMPLES} samples): p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, max ${ms(Math.max(...latencies))}; of which in the server: p50 ${ms(percentile(spent, 50))}, p95 ${ms(percentile(spent, 95))}`,
  );

  const counts = { issued: 0, ok: 0, failed: 0 };
  const failures = [];
  let loading = true;
  const caller = async (call, seed) => {
    for (let i = seed; loading; i++) {
      counts.issued++;
      try {
        await call(`tool_${i % TOOLS}`, { n: i });
        counts.ok++;
      } catch (err) {
        counts.failed++;
        if (failures.length < 5) failures.push(err.message);
      }
    }
  };
  const rssBefore = rssKib();
  const heapBefore = await heapAfterGcKib();
  const loops = Array.from({ length: CALLERS }, (_, i) => [caller(callSdk, i), caller(callModern, i * 7)]).flat();
  const underLoad = [];
  for (let i = 0; i < RELOADS; i++) underLoad.push(await reloadOnce());
  loading = false;
  await Promise.all(loops);
  const rssAfter = rssKib();
  const heapAfter = await heapAfterGcKib();
  console.log(
    `${RELOADS} reloads under load (${CALLERS * 2} callers): ${counts.issued} calls, ${counts.ok} answered, ${counts.failed} failed, ${counts.issued - counts.ok - counts.failed} lost; reload p95 ${ms(percentile(underLoad, 95))}`,
  );
  console.log(
    `RSS of toolwright dev: ${(rssBefore / 1024).toFixed(1)} MiB before, ${(rssAfter / 1024).toFixed(1)} MiB after (${((rssAfter - rssBefore) / RELOADS).toFixed(0)} KiB per reload)`,
  );
  console.log(
    `heap of toolwright dev after GC: ${(heapBefore / 1024).toFixed(1)} MiB before, ${(heapAfter / 1024).toFixed(1)} MiB after (${((heapAfter - heapBefore) / RELOADS).toFixed(0)} KiB per reload)`,
  );
  if (failures.length) console.log(`first failures: ${failures.join(' | ')}`);
  process.exitCode = counts.failed || counts.issued !== counts.ok ? 1 : 0;
} finally {
  await sdk.close().catch(() => {});
  await modern.close().catch(() => {});
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
