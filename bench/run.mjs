#!/usr/bin/env node
// toolwright benchmark: toolwright (both eras) vs @modelcontextprotocol/server 2.x (both eras),
// @modelcontextprotocol/sdk 1.x and a raw baseline, over stdio and Streamable HTTP.
// Usage: npm run build && npm run bench [-- --quick] [-- --help]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { HttpChannel, answerOf } from './lib/http-channel.mjs';
import { runCell, runOp } from './lib/load.mjs';
import { killAll, spawnTarget, waitForPort } from './lib/procs.mjs';
import { renderMarkdown, TARGETS } from './lib/report.mjs';
import { chartSvg, runSoak, soakMarkdown } from './lib/soak.mjs';
import { StdioChannel } from './lib/stdio-channel.mjs';
import { checkInitialize, initializedNotification, initializeRequest, makeWorkload } from './lib/workloads.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * A 1 MiB echo cell measures this many times as long as other tools/call cells: at ~50 calls/s,
 * 2 s hold ~100 calls, and one stall moved a repetition's ratio by 10–20% (11-34-24: 0.80–1.04).
 */
const BIG_PAYLOAD_FACTOR = 3;
const HELP = `npm run bench -- [options]

  --quick                 smoke run (~1.5 min): 1 repetition, short cells
  --reps N                repetitions per cell (default 5; quick 1). Goals are judged by the median
                          of the per-repetition paired ratios, and only with ≥ 5 repetitions
  --duration S            measured seconds per tools/call cell (default 2; quick 0.4); the 1 MiB
                          echo cells measure ${BIG_PAYLOAD_FACTOR}× as long, as they answer only ~50 calls/s
  --list-duration S       measured seconds per tools/list cell (default 1; quick 0.3)
  --warmup S              warm-up seconds per cell (default 0.2)
  --server-warmup S       unrecorded calculate_sum load (window/conn 16) on each fresh server
                          before its first tools/call cell, so JIT warm-up is not measured
                          (default 0.5; quick 0.3). The load generator itself warms up once
                          against the raw target before the run.
  --targets LIST          comma list of: ${TARGETS.map((t) => t.id).join(', ')}
                          (substrings match: "toolwright", "sdk2", "modern", "raw")
  --transports LIST       stdio,http (default both)
  --scenarios LIST        sum, echo1k, echo1m, list (= list1, list100, list1000: full listings,
                          every page), page (= page100, page10000: one tools/list page per op,
                          cycling through the pages, with 100 / 10,000 tools registered); add @N
                          for one load level, e.g. "sum@16,echo1m,list1000" (default: all below)
  --out DIR               where results go (default bench/results)
  --no-save               print only
  --dry-run               print the plan and the time estimate, run nothing
  --server-node-args ARGS extra node flags for server processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"

Soak (not part of npm test; --transports picks the transports, the other flags above are ignored):
  --soak                  one toolwright server per transport under a long run, sampled over time:
                          RSS, heap, open descriptors, audit-database size (chart: SVG beside the
                          report, bench/results/soak-<date>.md + -<transport>.svg + .json)
  --soak-calls N          tools/call per transport (default 1,000,000), every answer checked
  --soak-conc N           calls in flight (stdio window / HTTP connections; default 16)
  --soak-sessions N       legacy sessions opened, used once and abandoned, HTTP (default 1,000)
  --soak-streams N        subscriptions/listen streams opened and dropped, HTTP (default 1,000)
  --soak-wave N           sessions / streams opened at once (default 50)
  --soak-results N        large results stored, read back and read after expiry (default 1,000)
  --soak-sample-ms MS     sampling interval (default 1000)
  --soak-session-idle-ms MS  the server's legacy-session idle timeout for the soak (default 2000)
  --soak-keepalive-ms MS  the server's stream keep-alive interval for the soak (default 1000)
  --soak-result-ttl-ms MS the server's stored-result lifetime for the soak (default 2000)
  Smoke: npm run bench -- --soak --soak-calls 20000 --soak-sessions 50 --soak-streams 50 --soak-results 50

Default cells per target and transport (load = stdio window / HTTP connections):
  sum@1 sum@16 sum@64 echo1k@16 echo1m@1 list1@1 list100@1 list1000@1 page100@1 page10000@1
  (page cells measure --duration, as a tools/call cell: their figure is server CPU per page)
Run \`npm run build\` first: toolwright is loaded from dist/.`;

const DEFAULT_SCENARIOS = [
  { scenario: 'sum', kind: 'sum', conc: 1 },
  { scenario: 'sum', kind: 'sum', conc: 16 },
  { scenario: 'sum', kind: 'sum', conc: 64 },
  { scenario: 'echo1k', kind: 'echo1k', conc: 16 },
  { scenario: 'echo1m', kind: 'echo1m', conc: 1 },
  { scenario: 'list1', kind: 'list', conc: 1, toolCount: 1 },
  { scenario: 'list100', kind: 'list', conc: 1, toolCount: 100 },
  { scenario: 'list1000', kind: 'list', conc: 1, toolCount: 1000 },
  // one tools/list page per op, cycling through every page: the server's cost per page with a
  // small and a large registry (issue 14: 10,000 registered ≤ 1.2× 100 registered)
  { scenario: 'page100', kind: 'page', conc: 1, toolCount: 100 },
  { scenario: 'page10000', kind: 'page', conc: 1, toolCount: 10_000 },
];
/** Cells that read the tool list (no tools/call, so no server warm-up by calls). */
const isListing = (kind) => kind === 'list' || kind === 'page';

function parseArgs(argv) {
  const o = { quick: false, save: true, out: `${ROOT}bench/results`, nodeArgs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes('=') && a.startsWith('--') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const val = () => inline ?? argv[++i];
    switch (flag) {
      case '--quick':
        o.quick = true;
        break;
      case '--reps':
        o.reps = Number(val());
        break;
      case '--duration':
        o.duration = Number(val());
        break;
      case '--list-duration':
        o.listDuration = Number(val());
        break;
      case '--warmup':
        o.warmup = Number(val());
        break;
      case '--server-warmup':
        o.serverWarmup = Number(val());
        break;
      case '--targets':
        o.targets = val();
        break;
      case '--transports':
        o.transports = val();
        break;
      case '--scenarios':
        o.scenarios = val();
        break;
      case '--out':
        o.out = val();
        break;
      case '--no-save':
        o.save = false;
        break;
      case '--dry-run':
        o.dryRun = true;
        break;
      case '--server-node-args':
        o.nodeArgs = val().split(/\s+/).filter(Boolean);
        break;
      case '--soak':
        o.soak = true;
        break;
      case '--soak-calls':
        o.soakCalls = Number(val());
        break;
      case '--soak-conc':
        o.soakConc = Number(val());
        break;
      case '--soak-sessions':
        o.soakSessions = Number(val());
        break;
      case '--soak-streams':
        o.soakStreams = Number(val());
        break;
      case '--soak-wave':
        o.soakWave = Number(val());
        break;
      case '--soak-results':
        o.soakResults = Number(val());
        break;
      case '--soak-sample-ms':
        o.soakSampleMs = Number(val());
        break;
      case '--soak-session-idle-ms':
        o.soakSessionIdleMs = Number(val());
        break;
      case '--soak-keepalive-ms':
        o.soakKeepAliveMs = Number(val());
        break;
      case '--soak-result-ttl-ms':
        o.soakResultTtlMs = Number(val());
        break;
      case '-h':
      case '--help':
        console.log(HELP);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${a} (see --help)`);
    }
  }
  o.reps ??= o.quick ? 1 : 5;
  o.durationMs = (o.duration ?? (o.quick ? 0.4 : 2)) * 1000;
  o.listDurationMs = (o.listDuration ?? (o.quick ? 0.3 : 1)) * 1000;
  o.bigDurationMs = o.durationMs * BIG_PAYLOAD_FACTOR;
  o.warmupMs = (o.warmup ?? 0.2) * 1000;
  o.serverWarmupMs = (o.serverWarmup ?? (o.quick ? 0.3 : 0.5)) * 1000;
  o.listWarmupMs = o.warmupMs;
  // A page cell compares one page's cost with 100 and with 10,000 tools registered. The 100-tool
  // server has just served list100 (the same tools/list code, JIT-warm) while the 10,000-tool
  // one serves nothing else: with 0.2 s of warm-up the goal measured JIT warmth (100 registered:
  // 41 µs a page after list100, 58 µs fresh; 10,000: 60 µs fresh). Each page cell warms 1 s.
  o.pageWarmupMs = Math.max(o.warmupMs, o.quick ? 300 : 1000);
  for (const [k, v] of Object.entries({ reps: o.reps, duration: o.durationMs, 'list-duration': o.listDurationMs })) {
    if (!Number.isFinite(v) || v <= 0) throw new Error(`--${k} must be a positive number`);
  }
  for (const [k, v] of Object.entries({ warmup: o.warmupMs, 'server-warmup': o.serverWarmupMs })) {
    if (!Number.isFinite(v) || v < 0) throw new Error(`--${k} must be a number ≥ 0`);
  }

  o.soakCalls ??= 1_000_000;
  o.soakConc ??= 16;
  o.soakSessions ??= 1_000;
  o.soakStreams ??= 1_000;
  o.soakWave ??= 50;
  o.soakResults ??= 1_000;
  o.soakSampleMs ??= 1_000;
  o.soakSessionIdleMs ??= 2_000;
  o.soakKeepAliveMs ??= 1_000;
  o.soakResultTtlMs ??= 2_000;
  for (const k of ['soakCalls', 'soakConc', 'soakWave', 'soakSampleMs', 'soakSessionIdleMs', 'soakKeepAliveMs', 'soakResultTtlMs']) {
    if (!Number.isInteger(o[k]) || o[k] < 1) throw new Error(`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} must be a positive integer`);
  }
  for (const k of ['soakSessions', 'soakStreams', 'soakResults']) {
    if (!Number.isInteger(o[k]) || o[k] < 0) throw new Error(`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} must be an integer ≥ 0`);
  }
  const wanted = o.targets
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // Opt-in targets (toolwright-pg needs a database) run only when named, never through a substring.
  o.targetList = wanted ? TARGETS.filter((t) => wanted.some((w) => t.id === w || (!t.optIn && t.id.includes(w)))) : TARGETS.filter((t) => !t.optIn);
  if (o.targetList.length === 0) throw new Error(`no target matches ${o.targets}`);
  o.transportList = (o.transports ?? 'stdio,http').split(',').map((s) => s.trim());
  for (const t of o.transportList) if (t !== 'stdio' && t !== 'http') throw new Error(`unknown transport ${t}`);
  if (o.scenarios) {
    const picks = o.scenarios
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const chosen = [];
    for (const p of picks) {
      const [name, at] = p.split('@');
      const base = name === 'list' || name === 'page' ? DEFAULT_SCENARIOS.filter((s) => s.kind === name) : DEFAULT_SCENARIOS.filter((s) => s.scenario === name);
      if (base.length === 0) throw new Error(`unknown scenario ${name}`);
      if (at === undefined) chosen.push(...base);
      else {
        const conc = Number(at);
        if (!Number.isInteger(conc) || conc < 1) throw new Error(`bad load level in ${p}`);
        // a page cell's cursor belongs to its one slot
        if (conc !== 1 && base.some((b) => b.kind === 'page')) throw new Error(`page cells run at load 1 only (${p})`);
        chosen.push(...[...new Map(base.map((s) => [s.scenario, { ...s, conc }])).values()]);
      }
    }
    o.scenarioList = [...new Map(chosen.map((s) => [`${s.scenario}@${s.conc}`, s])).values()];
  } else o.scenarioList = DEFAULT_SCENARIOS;
  for (const s of o.scenarioList) s.order = DEFAULT_SCENARIOS.findIndex((d) => d.scenario === s.scenario) * 1000 + s.conc;
  o.scenarioList.sort((a, b) => a.order - b.order);
  return o;
}

// ---------- servers ----------

/**
 * Starts a target, does the era's opening (legacy: initialize + initialized), and times
 * spawn → first successful (and checked) tools/list. Returns how to get channels to it.
 */
async function startServer(target, transport, toolCount, opts) {
  const t0 = performance.now();
  const proc = spawnTarget(target.script, transport, toolCount, opts.nodeArgs, {}, target.runtime);
  const list = makeWorkload('list', { era: target.era, newline: transport === 'stdio', toolCount });
  try {
    if (transport === 'stdio') {
      const channel = new StdioChannel(proc);
      if (target.era === 'legacy') {
        const { msg } = await channel.send(initializeRequest(1, true), 1);
        checkInitialize(msg, 1);
        channel.write(initializedNotification(true));
      }
      await runOp(channel, list);
      return { proc, pid: proc.pid, sidePids: [], startupMs: performance.now() - t0, channel: () => channel, release: () => {} };
    }
    const port = await waitForPort(proc);
    let extraHeaders = '';
    if (target.bearerToken) {
      const token = /^TOKEN (\S+)$/m.exec(proc.banner ?? '')?.[1];
      if (!token) throw new Error('the target printed no TOKEN line');
      extraHeaders += `authorization: Bearer ${token}\r\n`;
    }
    if (target.era === 'legacy') {
      const control = new HttpChannel(port).slot(0);
      const res = await control.conn.request(
        `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${Buffer.byteLength(initializeRequest(1, false).pieces.map(String).join(''))}\r\n\r\n`,
        initializeRequest(1, false).pieces,
      );
      if (res.status !== 200) throw new Error(`initialize: HTTP ${res.status} ${res.body.slice(0, 200)}`);
      const version = checkInitialize(answerOf(res, 1), 1);
      const session = res.headers['mcp-session-id'];
      extraHeaders = `mcp-protocol-version: ${version}\r\n${session ? `mcp-session-id: ${session}\r\n` : ''}`;
      const note = initializedNotification(false).pieces;
      const ack = await control.conn.request(
        `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n${extraHeaders}content-length: ${Buffer.byteLength(note[0])}\r\n\r\n`,
        note,
      );
      if (ack.status !== 202 && ack.status !== 200 && ack.status !== 204)
        throw new Error(`notifications/initialized: HTTP ${ack.status} ${ack.body.slice(0, 200)}`);
      control.conn.close();
    }
    const first = new HttpChannel(port, { extraHeaders });
    await runOp(first.slot(0), list);
    first.close();
    // A target of several processes (toolwright-nginx3) names the servers to measure (PIDS, their
    // CPU summed) and the ones in front (SIDE-PIDS, measured apart) before its port.
    const pidList = (name) =>
      new RegExp(`^${name} ([\\d,]+)$`, 'm')
        .exec(proc.banner ?? '')?.[1]
        .split(',')
        .map(Number);
    return {
      proc,
      pid: pidList('PIDS') ?? proc.pid,
      sidePids: pidList('SIDE-PIDS') ?? [],
      startupMs: performance.now() - t0,
      channel: () => new HttpChannel(port, { extraHeaders }),
      release: (c) => c.close(),
    };
  } catch (err) {
    await proc.stop();
    throw new Error(`${target.id} ${transport} (${toolCount} tools) did not start: ${err.message}\n${proc.stderrTail()}`);
  }
}

// ---------- the run ----------

function meta(opts, startedAt) {
  const git = (args) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '';
    }
  };
  const version = (pkg) => {
    try {
      return JSON.parse(readFileSync(`${ROOT}node_modules/${pkg}/package.json`, 'utf8')).version;
    } catch {
      return '?';
    }
  };
  const own = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).version;
  const commit = git(['rev-parse', '--short', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--', 'src']) ? ' + uncommitted changes in src/' : '';
  const cpus = os.cpus();
  return {
    date: startedAt.toISOString().replace('T', ' ').slice(0, 19) + ' UTC',
    quick: opts.quick,
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
    cpus: cpus.length,
    cpuModel: cpus[0]?.model?.trim() ?? '?',
    os: `${os.type()} ${os.release()}`,
    node: process.versions.node,
    loadavg: os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' / '),
    toolwright: `${own} (${commit || 'no git'}${dirty})`,
    versions: { sdk2: version('@modelcontextprotocol/server'), sdk1: version('@modelcontextprotocol/sdk') },
    reps: opts.reps,
    durationMs: opts.durationMs,
    warmupMs: opts.warmupMs,
    serverWarmupMs: opts.serverWarmupMs,
    listDurationMs: opts.listDurationMs,
    bigDurationMs: opts.bigDurationMs,
    listWarmupMs: opts.listWarmupMs,
    pageWarmupMs: opts.pageWarmupMs,
  };
}

/** A cell's measured phase: tools/list cells, 1 MiB echo cells and the other tools/call cells each have their own. */
function measuredMs(opts, kind) {
  // a page cell measures as long as a tools/call cell: its figure is CPU per page, counted in 10 ms ticks
  return kind === 'list' ? opts.listDurationMs : kind === 'echo1m' ? opts.bigDurationMs : opts.durationMs;
}

function estimateSeconds(opts) {
  const calls = opts.scenarioList.filter((s) => !isListing(s.kind));
  const lists = opts.scenarioList.filter((s) => s.kind === 'list').length;
  const pages = opts.scenarioList.filter((s) => s.kind === 'page').length;
  // + ~0.6 s per server start/stop and ~0.1 s drain per cell (measured on 2 vCPUs)
  const callCellsMs = calls.reduce((ms, s) => ms + opts.warmupMs + measuredMs(opts, s.kind) + 100, 0);
  const perServer =
    (calls.length ? 0.6 + opts.serverWarmupMs / 1000 + callCellsMs / 1000 : 0) +
    lists * (0.6 + (opts.listWarmupMs + opts.listDurationMs + 100) / 1000) +
    pages * (0.6 + (opts.pageWarmupMs + opts.durationMs + 100) / 1000);
  const servers = opts.transportList.reduce((n, transport) => n + opts.targetList.filter((t) => !t.transports || t.transports.includes(transport)).length, 0);
  return perServer * servers * opts.reps + 1.5 * opts.transportList.length;
}

/** Unrecorded load on a fresh server (tools/call path) so that JIT warm-up is not measured. */
async function warmServer(server, target, transport, ms) {
  if (ms <= 0) return null;
  const channel = server.channel();
  const r = await runCell({
    channel,
    workload: makeWorkload('sum', { era: target.era, newline: transport === 'stdio' }),
    conc: 16,
    warmupMs: 0,
    durationMs: ms,
    pid: server.pid,
  });
  server.release(channel);
  return r.error;
}

/** Warms the load generator's own code once (against the raw target), so the first target measured is not penalised. */
async function warmClient(opts) {
  const raw = TARGETS.find((t) => t.id === 'raw');
  for (const transport of opts.transportList) {
    const server = await startServer(raw, transport, 2, []);
    try {
      for (const [kind, conc, ms] of [
        ['sum', 16, 400],
        ['sum', 1, 150],
        ['echo1k', 16, 200],
        ['list', 1, 150],
      ]) {
        const channel = server.channel();
        const r = await runCell({
          channel,
          workload: makeWorkload(kind, { era: 'modern', newline: transport === 'stdio', toolCount: 2 }),
          conc,
          warmupMs: 0,
          durationMs: ms,
          pid: server.proc.pid,
        });
        server.release(channel);
        if (r.error) throw new Error(`load generator warm-up failed: ${r.error}`);
      }
    } finally {
      await server.proc.stop();
    }
  }
}

const fmtCell = (r) =>
  r.error
    ? `FAILED: ${r.error}`
    : `${Math.round(r.opsPerSec).toLocaleString('en-US').padStart(7)} calls/s  p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms  cpu ${r.cpuUsPerOp.toFixed(1)} µs/call (${r.sideCpuUsPerOp === undefined ? '' : `in front ${r.sideCpuUsPerOp.toFixed(1)}, `}client ${r.clientCpuUsPerOp.toFixed(1)})  rss ${(r.peakRss / 1048576).toFixed(1)} MiB`;

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`bench: ${err.message}`);
    return 2;
  }
  if (!existsSync(`${ROOT}dist/index.js`)) throw new Error('dist/index.js is missing: run `npm run build` first');
  const startedAt = new Date();
  // Taken now: the code measured is what was built before the run, and the load average is the one at its start.
  const runMeta = meta(opts, startedAt);
  if (opts.soak) return soak(opts, runMeta, startedAt);
  const t0 = performance.now();
  const samples = [];
  const startups = [];
  let peakPerCell = true;
  console.log(
    `toolwright bench: ${opts.targetList.map((t) => t.id).join(', ')} × ${opts.transportList.join(', ')} × ${opts.scenarioList.map((s) => `${s.scenario}@${s.conc}`).join(' ')}; ${opts.reps} rep(s); estimated ${(estimateSeconds(opts) / 60).toFixed(1)} min`,
  );
  if (opts.dryRun) return 0;
  await warmClient(opts);

  // Cells that share a server: the calls share the 2-tool server, each tools/list size has its own.
  const groups = new Map(); // toolCount → scenarios
  for (const s of opts.scenarioList) {
    const n = s.toolCount ?? 2;
    if (!groups.has(n)) groups.set(n, []);
    groups.get(n).push(s);
  }
  for (let rep = 0; rep < opts.reps; rep++) {
    for (const transport of opts.transportList) {
      for (const [toolCount, scenarios] of groups) {
        // Every target's server runs for the whole group, and each cell measures the targets
        // back to back: the figures a ratio compares are taken seconds apart, not minutes, so
        // the machine's drift (its speed moves by tens of percent from minute to minute) mostly
        // cancels out. Each server starts (and warms up) just before its first cell, alone, so
        // its start-up is timed without other load.
        const servers = new Map(); // target id → running server (a target whose start failed is tried again by its next cell)
        const needsWarmup = scenarios.some((s) => !isListing(s.kind));
        const ensureServer = async (target) => {
          let server = servers.get(target.id);
          if (server) return server;
          try {
            server = await startServer(target, transport, toolCount, opts);
            startups.push({ rep, target: target.id, transport, toolCount, ms: server.startupMs });
            if (needsWarmup) {
              const warmError = await warmServer(server, target, transport, opts.serverWarmupMs);
              if (warmError) throw new Error(`warm-up: ${warmError}`);
            }
            servers.set(target.id, server);
            return server;
          } catch (err) {
            if (server) await server.proc.stop();
            return { error: String(err.message).split('\n').slice(0, 2).join(' | ') };
          }
        };
        // Each repetition and each cell starts with a different target, so none is always first.
        // Targets that serve only some transports (the JWT target: HTTP) sit out the others.
        const targets = opts.targetList.filter((t) => !t.transports || t.transports.includes(transport));
        const orderFor = (shift) => targets.map((_, i) => targets[(i + shift) % targets.length]);
        for (const [index, s] of scenarios.entries()) {
          for (const target of orderFor(rep + index)) {
            const tag = `[${rep + 1}/${opts.reps}] ${transport.padEnd(5)} ${target.id.padEnd(17)} ${`${s.scenario}@${s.conc}`.padEnd(12)}`;
            const sample = { rep, target: target.id, transport, scenario: s.scenario, conc: s.conc, order: s.order };
            const server = await ensureServer(target);
            if (server.error) {
              samples.push({ ...sample, error: server.error });
              console.log(`${tag} ${fmtCell(server)}`);
              servers.delete(target.id); // the next cell tries a fresh server
              continue;
            }
            const channel = server.channel();
            const list = isListing(s.kind);
            const r = await runCell({
              channel,
              workload: makeWorkload(s.kind, { era: target.era, newline: transport === 'stdio', toolCount }),
              conc: s.conc,
              warmupMs: s.kind === 'page' ? opts.pageWarmupMs : list ? opts.listWarmupMs : opts.warmupMs,
              durationMs: measuredMs(opts, s.kind),
              pid: server.pid,
              sidePids: server.sidePids,
            });
            server.release(channel);
            peakPerCell &&= r.peakIsPerCell || !!r.error;
            samples.push({ ...sample, ...r });
            console.log(`${tag} ${fmtCell(r)}`);
            if (r.error) {
              // a failed cell may leave the server wedged: the next cell gets a fresh one
              await server.proc.stop();
              servers.delete(target.id);
            }
          }
        }
        for (const server of servers.values()) await server.proc.stop();
      }
    }
  }

  const elapsedS = (performance.now() - t0) / 1000;
  const m = { ...runMeta, elapsed: `${Math.floor(elapsedS / 60)} min ${Math.round(elapsedS % 60)} s`, peakPerCell };
  const md = renderMarkdown({ samples, startups, meta: m });
  console.log(`\n${md}`);
  if (opts.save) {
    mkdirSync(opts.out, { recursive: true });
    const stamp = startedAt.toISOString().replace(/[:]/g, '-').replace(/\..*/, '');
    const name = `bench-${stamp}${opts.quick ? '-quick' : ''}`;
    writeFileSync(`${opts.out}/${name}.md`, md);
    writeFileSync(`${opts.out}/${name}.json`, JSON.stringify({ meta: m, samples, startups }, null, 1));
    writeFileSync(`${opts.out}/latest.md`, md);
    console.log(`written: ${opts.out}/${name}.md (+ .json) and ${opts.out}/latest.md`);
  }
  return samples.some((s) => s.error) ? 1 : 0;
}

/** --soak: runs the soak, writes its report, its charts and its samples; exit 1 if a check failed. */
async function soak(opts, runMeta, startedAt) {
  const results = await runSoak(opts);
  const meta = {
    date: runMeta.date,
    command: runMeta.command,
    machine: `${runMeta.cpus} × ${runMeta.cpuModel}, ${runMeta.os}, Node ${runMeta.node}`,
    loadavg: runMeta.loadavg,
    toolwright: runMeta.toolwright,
    calls: opts.soakCalls,
    conc: opts.soakConc,
    sessions: opts.soakSessions,
    streams: opts.soakStreams,
    wave: opts.soakWave,
    results: opts.soakResults,
    sampleMs: opts.soakSampleMs,
    sessionIdleMs: opts.soakSessionIdleMs,
    keepAliveMs: opts.soakKeepAliveMs,
    resultTtlMs: opts.soakResultTtlMs,
  };
  const stamp = startedAt.toISOString().replace(/[:]/g, '-').replace(/\..*/, '');
  const name = `soak-${stamp}`;
  const charts = Object.fromEntries(results.map((r) => [r.transport, `${name}-${r.transport}.svg`]));
  const md = soakMarkdown(results, meta, charts);
  console.log(`\n${md}`);
  if (opts.save) {
    mkdirSync(opts.out, { recursive: true });
    for (const r of results) writeFileSync(`${opts.out}/${charts[r.transport]}`, chartSvg(r));
    writeFileSync(`${opts.out}/${name}.md`, md);
    writeFileSync(`${opts.out}/${name}.json`, JSON.stringify({ meta, results }, null, 1));
    console.log(`written: ${opts.out}/${name}.md (+ .json, ${Object.values(charts).join(', ')})`);
  }
  return results.some((r) => r.problems.length) ? 1 : 0;
}

// Servers never outlive the harness: exit, Ctrl-C, kill, or a crash.
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    console.error(`\n${sig}: stopping servers`);
    killAll();
    process.exit(130);
  });
}
main().then(
  (code) => {
    killAll();
    process.exit(code);
  },
  (err) => {
    console.error(err?.stack ?? err);
    killAll();
    process.exit(2);
  },
);
