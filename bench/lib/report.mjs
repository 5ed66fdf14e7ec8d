// Markdown output: the results table (median and min–max over repetitions), the ratios
// toolwright ÷ each SDK and ÷ raw for every row, start-up, and the issue's targets.
import { runtimeGoals } from './goals-runtimes.mjs';
import { median, summarize } from './stats.mjs';

export const TARGETS = [
  { id: 'toolwright-modern', label: 'toolwright modern', script: 'toolwright.mjs', era: 'modern' },
  { id: 'toolwright-legacy', label: 'toolwright legacy', script: 'toolwright.mjs', era: 'legacy' },
  { id: 'sdk2-modern', label: '2.x SDK modern', script: 'sdk2.mjs', era: 'modern' },
  { id: 'sdk2-legacy', label: '2.x SDK legacy', script: 'sdk2.mjs', era: 'legacy' },
  { id: 'sdk1', label: '1.x SDK', script: 'sdk1.mjs', era: 'legacy' },
  { id: 'raw', label: 'raw baseline', script: 'raw.mjs', era: 'modern' },
  { id: 'raw-paged', label: 'raw baseline, tools/list paged by 100', script: 'raw-paged.mjs', era: 'modern' },
  // fastmcp (npm `fastmcp`) speaks only the handshake-based revisions: legacy era on both transports.
  { id: 'fastmcp', label: 'fastmcp (legacy)', script: 'fastmcp.mjs', era: 'legacy' },
  // JWT authorization on: every request carries a bearer token the server verifies (HTTP only).
  { id: 'toolwright-jwt', label: 'toolwright modern + JWT', script: 'toolwright-jwt.mjs', era: 'modern', transports: ['http'], bearerToken: true },
  // The audit trail in PostgreSQL (HTTP only; run only when named: it needs $TOOLWRIGHT_BENCH_POSTGRES).
  { id: 'toolwright-pg', label: 'toolwright modern, PostgreSQL audit', script: 'toolwright-pg.mjs', era: 'modern', transports: ['http'], optIn: true },
  // The OpenTelemetry Node SDK registered, exporting over OTLP/HTTP to a local receiver (run only when named).
  { id: 'toolwright-otel', label: 'toolwright modern + OpenTelemetry SDK', script: 'toolwright-otel.mjs', era: 'modern', optIn: true },
  // Another commit's build, from $TOOLWRIGHT_BENCH_BASE (run only when named; bench/baseline.mjs makes one).
  { id: 'toolwright-base', label: 'toolwright modern, baseline build', script: 'toolwright-base.mjs', era: 'modern', optIn: true },
  // Shared state in Redis (HTTP only; run only when named: it needs $TOOLWRIGHT_BENCH_REDIS).
  { id: 'toolwright-redis', label: 'toolwright modern, Redis state', script: 'toolwright-redis.mjs', era: 'modern', transports: ['http'], optIn: true },
  // Three of those behind nginx (HTTP only; run only when named: it starts nginx, and a redis-server
  // unless $TOOLWRIGHT_BENCH_REDIS names one). Its CPU is the three instances' summed.
  // Issue 33 (run only when named; `npm run bench:runtimes` names them): the endpoint's fetch face
  // on Node (Hono's Node adapter), on Deno (Deno.serve) and on Bun (Bun.serve), HTTP only; the
  // trail of an install without better-sqlite3 (JSON lines) and no trail, both transports.
  { id: 'toolwright-fetch', label: 'toolwright modern, fetch face on Node', script: 'toolwright-fetch.mjs', era: 'modern', transports: ['http'], optIn: true },
  {
    id: 'toolwright-deno',
    label: 'toolwright modern on Deno, JSON-lines trail',
    script: 'toolwright-deno.mjs',
    era: 'modern',
    transports: ['http'],
    optIn: true,
    runtime: 'deno',
  },
  {
    id: 'toolwright-bun',
    label: 'toolwright modern on Bun, JSON-lines trail',
    script: 'toolwright-bun.mjs',
    era: 'modern',
    transports: ['http'],
    optIn: true,
    runtime: 'bun',
  },
  { id: 'toolwright-jsonl', label: 'toolwright modern, JSON-lines trail', script: 'toolwright-jsonl.mjs', era: 'modern', optIn: true },
  { id: 'toolwright-noaudit', label: 'toolwright modern, no audit trail', script: 'toolwright-noaudit.mjs', era: 'modern', optIn: true },
  {
    id: 'toolwright-nginx3',
    label: 'toolwright modern, 3 instances behind nginx, Redis state',
    script: 'toolwright-nginx3.mjs',
    era: 'modern',
    transports: ['http'],
    optIn: true,
  },
];
const LABEL = Object.fromEntries(TARGETS.map((t) => [t.id, t.label]));

const SCENARIO_LABEL = {
  sum: 'tools/call calculate_sum',
  echo1k: 'tools/call echo 1 KiB',
  echo1m: 'tools/call echo 1 MiB',
  list1: 'tools/list, 1 tool',
  list100: 'tools/list, 100 tools',
  list1000: 'tools/list, 1,000 tools',
  page100: 'tools/list one page, 100 registered',
  page10000: 'tools/list one page, 10,000 registered',
};
const concLabel = (transport, conc) => (transport === 'stdio' ? `window ${conc}` : `${conc} conn`);

const int = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '—');
const sig = (x) => {
  if (!Number.isFinite(x)) return '—';
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  if (x >= 1) return x.toFixed(2);
  return x.toPrecision(2);
};
const mib = (x) => (Number.isFinite(x) ? (x / 1048576).toFixed(1) : '—');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '—');
function cell(s, fmt) {
  if (!s || s.n === 0) return '—';
  if (s.n === 1 || fmt(s.min) === fmt(s.max)) return fmt(s.median);
  return `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;
}

/** Groups samples into rows keyed by transport/scenario/conc, each with per-target stats. */
export function aggregate(samples) {
  const rows = new Map();
  for (const s of samples) {
    const key = `${s.transport}|${s.scenario}|${s.conc}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { transport: s.transport, scenario: s.scenario, conc: s.conc, order: s.order, byTarget: {} }));
    (row.byTarget[s.target] ??= []).push(s);
  }
  for (const row of rows.values()) {
    for (const [target, list] of Object.entries(row.byTarget)) {
      const ok = list.filter((s) => !s.error);
      row.byTarget[target] = {
        reps: list.length,
        failed: list.filter((s) => s.error).map((s) => s.error),
        opsPerSec: summarize(ok.map((s) => s.opsPerSec)),
        p50: summarize(ok.map((s) => s.p50)),
        p99: summarize(ok.map((s) => s.p99)),
        cpu: summarize(ok.map((s) => s.cpuUsPerOp)),
        rss: summarize(ok.map((s) => s.peakRss)),
        clientCpu: summarize(ok.map((s) => s.clientCpuUsPerOp)),
        // a load balancer in front (toolwright-nginx3), apart from the servers' `cpu`
        frontCpu: summarize(ok.map((s) => s.sideCpuUsPerOp).filter((v) => v !== undefined)),
        reqPerOp: ok.length ? ok[0].requests / Math.max(1, ok[0].ops) : NaN,
      };
    }
  }
  return [...rows.values()].sort((a, b) => (a.transport === b.transport ? a.order - b.order : a.transport === 'stdio' ? -1 : 1));
}

export function aggregateStartup(startups) {
  const rows = new Map();
  for (const s of startups) {
    const key = `${s.transport}|${s.toolCount}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { transport: s.transport, toolCount: s.toolCount, byTarget: {} }));
    (row.byTarget[s.target] ??= []).push(s.ms);
  }
  for (const row of rows.values()) for (const t of Object.keys(row.byTarget)) row.byTarget[t] = summarize(row.byTarget[t]);
  return [...rows.values()].sort((a, b) => (a.transport === b.transport ? a.toolCount - b.toolCount : a.transport === 'stdio' ? -1 : 1));
}

const med = (row, target, field = 'opsPerSec') => row?.byTarget[target]?.[field]?.median;

function summaryTable(rows) {
  const out = [
    '| transport | scenario | load | toolwright modern calls/s | toolwright legacy calls/s | tw modern ÷ 2.x modern | tw legacy ÷ 2.x legacy | tw legacy ÷ 1.x | tw legacy ÷ fastmcp | tw modern ÷ raw | tw legacy ÷ raw |',
    '|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const r of rows) {
    out.push(
      `| ${r.transport} | ${SCENARIO_LABEL[r.scenario]} | ${concLabel(r.transport, r.conc)} | ${int(med(r, 'toolwright-modern'))} | ${int(med(r, 'toolwright-legacy'))} | ${ratio(med(r, 'toolwright-modern'), med(r, 'sdk2-modern'))} | ${ratio(med(r, 'toolwright-legacy'), med(r, 'sdk2-legacy'))} | ${ratio(med(r, 'toolwright-legacy'), med(r, 'sdk1'))} | ${ratio(med(r, 'toolwright-legacy'), med(r, 'fastmcp'))} | ${ratio(med(r, 'toolwright-modern'), med(r, 'raw'))} | ${ratio(med(r, 'toolwright-legacy'), med(r, 'raw'))} |`,
    );
  }
  return out.join('\n');
}

function costTable(rows) {
  const out = ['| transport | scenario | load | calls/s | p50 | p99 | server CPU/call | peak RSS |', '|---|---|---|--:|--:|--:|--:|--:|'];
  // ratios toolwright modern ÷ raw: >1 is better for calls/s, worse for the others
  for (const r of rows) {
    const tw = 'toolwright-modern';
    out.push(
      `| ${r.transport} | ${SCENARIO_LABEL[r.scenario]} | ${concLabel(r.transport, r.conc)} | ${ratio(med(r, tw), med(r, 'raw'))} | ${ratio(med(r, tw, 'p50'), med(r, 'raw', 'p50'))} | ${ratio(med(r, tw, 'p99'), med(r, 'raw', 'p99'))} | ${ratio(med(r, tw, 'cpu'), med(r, 'raw', 'cpu'))} | ${ratio(med(r, tw, 'rss'), med(r, 'raw', 'rss'))} |`,
    );
  }
  return out.join('\n');
}

function resultsTable(rows, targetIds) {
  const out = [
    '| transport | scenario | load | target | calls/s | p50 ms | p99 ms | server CPU µs/call | peak RSS MiB | req/op | load-gen CPU µs/call |',
    '|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const r of rows) {
    for (const t of targetIds) {
      const s = r.byTarget[t];
      if (!s) continue;
      const fail = s.failed.length ? ` ❌ ${s.failed.length}/${s.reps} failed: ${s.failed[0].replace(/\|/g, '/').slice(0, 140)}` : '';
      out.push(
        `| ${r.transport} | ${SCENARIO_LABEL[r.scenario]} | ${concLabel(r.transport, r.conc)} | ${LABEL[t]}${fail} | ${cell(s.opsPerSec, int)} | ${cell(s.p50, sig)} | ${cell(s.p99, sig)} | ${cell(s.cpu, sig)} | ${cell(s.rss, mib)} | ${Number.isFinite(s.reqPerOp) ? sig(s.reqPerOp) : '—'} | ${sig(s.clientCpu.median)} |`,
      );
    }
  }
  return out.join('\n');
}

function startupTable(rows, targetIds) {
  const out = [
    `| transport | tools | ${targetIds.map((t) => LABEL[t]).join(' | ')} | tw modern ÷ raw | tw modern ÷ 2.x modern |`,
    `|---|--:|${targetIds.map(() => '--:').join('|')}|--:|--:|`,
  ];
  for (const r of rows) {
    const m = (t) => r.byTarget[t]?.median;
    out.push(
      `| ${r.transport} | ${int(r.toolCount)} | ${targetIds.map((t) => cell(r.byTarget[t], sig)).join(' | ')} | ${ratio(m('toolwright-modern'), m('raw'))} | ${ratio(m('toolwright-modern'), m('sdk2-modern'))} |`,
    );
  }
  return out.join('\n');
}

/** Goals are judged only with at least this many repetitions (issue 14). */
export const MIN_REPS_FOR_VERDICT = 5;

/**
 * The goals of issue 14 (and issue 15's JWT goal): each is a function of a set of rows, evaluated
 * on each repetition alone, whose targets were measured seconds apart (a paired ratio); the
 * median of those per-repetition ratios is what "met" judges. `ok` null: reported, no verdict.
 */
export function goalList(rows, startupRows) {
  const goals = [];
  // A cell's row, looked up in whichever rows a goal is evaluated on.
  const at = (transport, scenario, conc) => (rs) =>
    rs.find((r) => r.transport === transport && r.scenario === scenario && (conc === undefined || r.conc === conc));
  const add = (goal, era, needed, ok, value, unit = '×') => goals.push({ goal, era, needed, ok, value, unit });
  const has = (row, ...targets) => row && targets.every((t) => row.byTarget[t]);
  const perPage = (row, target) => row?.byTarget[target]?.cpu?.median / row?.byTarget[target]?.reqPerOp;
  for (const era of ['modern', 'legacy']) {
    const tw = `toolwright-${era}`;
    const sdk = `sdk2-${era}`;
    for (const conc of [16, 64]) {
      const s = at('stdio', 'sum', conc);
      if (has(s(rows), tw, 'raw'))
        add(
          `stdio calculate_sum, window ${conc} vs raw`,
          era,
          '≥ 1.0×',
          (v) => v >= 1.0,
          (rs) => med(s(rs), tw) / med(s(rs), 'raw'),
        );
      const h = at('http', 'sum', conc);
      if (has(h(rows), tw, 'raw'))
        add(
          `HTTP calculate_sum, ${conc} conn vs raw`,
          era,
          '≥ 0.8×',
          (v) => v >= 0.8,
          (rs) => med(h(rs), tw) / med(h(rs), 'raw'),
        );
      if (has(h(rows), tw, sdk))
        add(
          `HTTP calculate_sum, ${conc} conn vs 2.x SDK`,
          era,
          '≥ 15×',
          (v) => v >= 15,
          (rs) => med(h(rs), tw) / med(h(rs), sdk),
        );
    }
    const h1 = at('http', 'sum', 1);
    if (has(h1(rows), tw, 'raw')) {
      for (const p of ['p50', 'p99'])
        add(
          `HTTP calculate_sum, 1 conn: ${p} latency vs raw`,
          era,
          '≤ 1.3×',
          (v) => v <= 1.3,
          (rs) => med(h1(rs), tw, p) / med(h1(rs), 'raw', p),
        );
    }
    for (const transport of ['stdio', 'http']) {
      const echoConc = rows
        .filter((r) => r.transport === transport && r.scenario === 'echo1m')
        .map((r) => r.conc)
        .sort((a, b) => a - b)[0];
      if (echoConc !== undefined) {
        const echo = at(transport, 'echo1m', echoConc);
        if (has(echo(rows), tw, 'raw'))
          add(
            `${transport} echo 1 MiB (${concLabel(transport, echoConc)}) vs raw`,
            era,
            '≥ 1.0×',
            (v) => v >= 1.0,
            (rs) => med(echo(rs), tw) / med(echo(rs), 'raw'),
          );
      }
      const p100 = at(transport, 'page100');
      const p10k = at(transport, 'page10000');
      if (has(p100(rows), tw) && has(p10k(rows), tw)) {
        add(
          `${transport} tools/list server CPU per page: 10,000 registered ÷ 100 registered`,
          era,
          '≤ 1.2×',
          (v) => v <= 1.2,
          (rs) => perPage(p10k(rs), tw) / perPage(p100(rs), tw),
        );
      }
      const l1000 = at(transport, 'list1000');
      if (has(l1000(rows), tw, 'raw-paged'))
        add(
          `${transport} full listing of 1,000 tools (all pages) vs raw pager`,
          era,
          '≥ 0.8×',
          (v) => v >= 0.8,
          (rs) => med(l1000(rs), tw) / med(l1000(rs), 'raw-paged'),
        );
      const load = at(transport, 'sum', 16);
      if (has(load(rows), tw, 'raw'))
        add(
          `${transport} peak RSS under load (calculate_sum, ${concLabel(transport, 16)}) vs raw`,
          era,
          '≤ 1.3×',
          (v) => v <= 1.3,
          (rs) => med(load(rs), tw, 'rss') / med(load(rs), 'raw', 'rss'),
        );
      const startup = (srs) => srs.find((r) => r.transport === transport && r.toolCount === 2);
      if (startup(startupRows)?.byTarget[tw] && startup(startupRows)?.byTarget.raw) {
        add(
          `${transport} start-up to first tools/list (2 tools) vs raw`,
          era,
          '≤ 1.2×',
          (v) => v <= 1.2,
          (_rs, srs) => startup(srs)?.byTarget[tw]?.median / startup(srs)?.byTarget.raw?.median,
        );
      }
    }
  }
  // fastmcp (legacy era only): its ratio is reported, with no goal; same era first.
  for (const transport of ['stdio', 'http']) {
    for (const r of rows.filter((x) => x.transport === transport && x.scenario === 'sum' && x.byTarget.fastmcp)) {
      const c = at(transport, 'sum', r.conc);
      for (const era of ['legacy', 'modern']) {
        if (has(r, `toolwright-${era}`))
          add(
            `${transport} calculate_sum, ${concLabel(transport, r.conc)}: toolwright ÷ fastmcp`,
            era,
            'reported',
            null,
            (rs) => med(c(rs), `toolwright-${era}`) / med(c(rs), 'fastmcp'),
          );
      }
    }
  }
  // Authorization must not cost much (issue 15): the same cell with JWT verification and scope checks on.
  const h16 = at('http', 'sum', 16);
  if (h16(rows)?.byTarget['toolwright-jwt']) {
    add(
      'HTTP calculate_sum, 16 conn, JWT authorization on vs off',
      'modern',
      '≥ 0.9×',
      (v) => v >= 0.9,
      (rs) => med(h16(rs), 'toolwright-jwt') / med(h16(rs), 'toolwright-modern'),
    );
  }
  // The audit trail in PostgreSQL against the default SQLite file (issue 24): reported, no goal.
  if (h16(rows)?.byTarget['toolwright-pg'] && h16(rows)?.byTarget['toolwright-modern']) {
    add(
      'HTTP calculate_sum, 16 conn: PostgreSQL audit ÷ SQLite audit',
      'modern',
      'reported',
      null,
      (rs) => med(h16(rs), 'toolwright-pg') / med(h16(rs), 'toolwright-modern'),
    );
  }
  // This build against the baseline build (issue 31: at or above 1.0× of d2219cf, middleware and tracing present but unused).
  for (const [transport, cell] of [
    ['stdio', at('stdio', 'sum', 16)],
    ['http', h16],
  ]) {
    if (cell(rows)?.byTarget['toolwright-base'] && cell(rows)?.byTarget['toolwright-modern']) {
      add(
        `${transport === 'http' ? 'HTTP calculate_sum, 16 conn' : 'stdio calculate_sum, window 16'}: this build ÷ baseline build`,
        'modern',
        '≥ 1.0×',
        (v) => v >= 1.0,
        (rs) => med(cell(rs), 'toolwright-modern') / med(cell(rs), 'toolwright-base'),
      );
    }
  }
  // Tracing with an SDK exporting to a local receiver against none registered (issue 23): reported, no goal.
  for (const [transport, cell] of [
    ['stdio', at('stdio', 'sum', 16)],
    ['http', h16],
  ]) {
    if (cell(rows)?.byTarget['toolwright-otel'] && cell(rows)?.byTarget['toolwright-modern']) {
      add(
        `${transport === 'http' ? 'HTTP' : 'stdio'} calculate_sum, 16: OpenTelemetry SDK exporting ÷ no SDK`,
        'modern',
        'reported',
        null,
        (rs) => med(cell(rs), 'toolwright-otel') / med(cell(rs), 'toolwright-modern'),
      );
    }
  }
  // Shared state in Redis against in-process state (issue 24): every call takes its rate-limit points in Redis.
  if (h16(rows)?.byTarget['toolwright-redis'] && h16(rows)?.byTarget['toolwright-modern']) {
    add(
      'HTTP calculate_sum, 16 conn: Redis state ÷ local state',
      'modern',
      '≥ 0.7×',
      (v) => v >= 0.7,
      (rs) => med(h16(rs), 'toolwright-redis') / med(h16(rs), 'toolwright-modern'),
    );
  }
  // The same at 64 connections, reported: a turn carries more calls, so its one Redis command and
  // the turn's own costs are shared by more of them.
  const h64 = at('http', 'sum', 64);
  if (h64(rows)?.byTarget['toolwright-redis'] && h64(rows)?.byTarget['toolwright-modern']) {
    add(
      'HTTP calculate_sum, 64 conn: Redis state ÷ local state',
      'modern',
      'reported',
      null,
      (rs) => med(h64(rs), 'toolwright-redis') / med(h64(rs), 'toolwright-modern'),
    );
  }
  // Scale-out (issue 24): three instances behind nginx against one, with the same Redis state and
  // with local state. Reported, no goal: on 2 cores three instances, nginx and the load generator
  // share the same CPUs, so this shows the cost of the set-up more than its capacity.
  for (const base of ['toolwright-redis', 'toolwright-modern']) {
    if (h16(rows)?.byTarget['toolwright-nginx3'] && h16(rows)?.byTarget[base]) {
      const name = base === 'toolwright-redis' ? 'one instance, Redis state' : 'one instance, local state';
      add(
        `HTTP calculate_sum, 16 conn: calls/s, 3 instances behind nginx ÷ ${name}`,
        'modern',
        'reported',
        null,
        (rs) => med(h16(rs), 'toolwright-nginx3') / med(h16(rs), base),
      );
      add(
        `HTTP calculate_sum, 16 conn: server CPU per call (3 instances summed, nginx not counted) ÷ ${name}`,
        'modern',
        'reported',
        null,
        (rs) => med(h16(rs), 'toolwright-nginx3', 'cpu') / med(h16(rs), base, 'cpu'),
      );
    }
  }
  runtimeGoals({ rows, at, add, med });
  return goals;
}

/**
 * Judges one goal: its ratio in each repetition (targets measured seconds apart), and the
 * median of those ratios. A verdict needs MIN_REPS_FOR_VERDICT finite ratios.
 */
export function judgeGoal({ ok, value }, perRep) {
  const reps = perRep.map((r) => value(r.rows, r.startupRows));
  const finite = reps.filter(Number.isFinite);
  const v = median(finite);
  let verdict;
  if (!ok) verdict = '—';
  else if (finite.length === 0) verdict = '—';
  else if (finite.length < MIN_REPS_FOR_VERDICT) verdict = `not judged (${finite.length} rep${finite.length === 1 ? '' : 's'} < ${MIN_REPS_FOR_VERDICT})`;
  else verdict = ok(v) ? '✅ met' : '❌ missed';
  return { reps, median: v, verdict };
}

/** The goals table: the median of the per-repetition ratios judged, every repetition's ratio beside it. */
function goalsTable(rows, startupRows, perRep) {
  const lines = ['| goal | era | median of per-repetition ratios | each repetition | needed | verdict |', '|---|---|--:|--:|--:|:-:|'];
  // A ratio, or (unit µs) a difference of server CPU per call.
  const shown = (v, unit) => (Number.isFinite(v) ? `${v.toFixed(2)}${unit === 'µs' ? ' µs' : unit}` : '—');
  for (const goal of goalList(rows, startupRows)) {
    const { reps, median: v, verdict } = judgeGoal(goal, perRep);
    const each = reps.some(Number.isFinite) ? reps.map((x) => (Number.isFinite(x) ? x.toFixed(2) : '—')).join(' · ') : '—';
    lines.push(`| ${goal.goal} | ${goal.era} | ${shown(v, goal.unit)} | ${each} | ${goal.needed} | ${verdict} |`);
  }
  return lines.join('\n');
}

/** The rows of each repetition alone, in repetition order. */
function rowsPerRepetition(samples, startups) {
  const reps = [...new Set(samples.map((s) => s.rep))].filter((r) => r !== undefined).sort((a, b) => a - b);
  return reps.map((rep) => ({
    rows: aggregate(samples.filter((s) => s.rep === rep)),
    startupRows: aggregateStartup(startups.filter((s) => s.rep === rep)),
  }));
}

/**
 * The goal on tools/list of 1,000 tools times a whole listing, which grows with the bytes sent;
 * what a server controls is the cost of one page. Server CPU per request (= per page) shows it.
 */
function pageCostLines(rows) {
  const lines = [];
  for (const transport of ['stdio', 'http']) {
    const perPage = (scenario) => {
      const t = rows.find((r) => r.transport === transport && r.scenario === scenario)?.byTarget['toolwright-modern'];
      return t ? t.cpu.median / t.reqPerOp : NaN;
    };
    const cells = [
      ['list1', '1'],
      ['list100', '100'],
      ['list1000', '1,000'],
      ['page100', '100', ' (page cell)'],
      ['page10000', '10,000', ' (page cell)'],
    ].filter(([sc]) => Number.isFinite(perPage(sc)));
    if (cells.length) lines.push(`- ${transport}: ${cells.map(([sc, n, how = '']) => `${sig(perPage(sc))} µs with ${n} registered${how}`).join(', ')}`);
  }
  return lines.length ? `Server CPU per \`tools/list\` request (one page, at most 100 tools), toolwright modern:\n\n${lines.join('\n')}\n` : '';
}

export function renderMarkdown({ samples, startups, meta }) {
  const rows = aggregate(samples);
  const startupRows = aggregateStartup(startups);
  const targetIds = TARGETS.map((t) => t.id).filter((id) => samples.some((s) => s.target === id) || startups.some((s) => s.target === id));
  const failures = samples.filter((s) => s.error);
  return `# toolwright benchmark — ${meta.date}

${meta.quick ? '**Quick run** (short cells, 1 repetition): a smoke test of every target, not a measurement.\n\n' : ''}- command: \`${meta.command}\`
- machine: ${meta.cpus} × ${meta.cpuModel}, ${meta.os}, Node ${meta.node}; load average at start ${meta.loadavg}
- code: toolwright ${meta.toolwright}; @modelcontextprotocol/server ${meta.versions.sdk2}, @modelcontextprotocol/sdk ${meta.versions.sdk1}
- method: ${meta.reps} repetition(s), each cell measures every target back to back (the first target rotates per cell and repetition), a fresh server per target and repetition (started one at a time) kept up for the cells sharing its tool count, warmed by ${meta.serverWarmupMs} ms of unrecorded calculate_sum load before the tools/call cells (the load generator warms up once before the run); each cell ${meta.warmupMs} ms warm-up + ${meta.durationMs} ms measured (${meta.bigDurationMs ? `echo 1 MiB: ${meta.bigDurationMs} ms; ` : ''}tools/list: ${meta.listWarmupMs} + ${meta.listDurationMs} ms${meta.pageWarmupMs ? `; one tools/list page: ${meta.pageWarmupMs} + ${meta.durationMs} ms` : ''}), then in-flight requests drained; the load generator is one separate process speaking raw JSON-RPC and checking every answer (id, no error, exact text or tool count, \`resultType\` in the modern era)
- figures are median (min–max) over repetitions; latency runs from writing a request to the last byte of its answer (the load generator's own parsing excluded; summed over pages); "calls/s" counts complete operations (a \`tools/list\` op follows \`nextCursor\` through every page, see req/op); CPU is the server process's user+system time over the measured phase ÷ calls (/proc, 10 ms ticks); peak RSS is the server's VmHWM, reset before each measured phase${meta.peakPerCell ? '' : ' (reset unavailable here: lifetime peak)'}
- total wall time ${meta.elapsed}${failures.length ? `\n- ❌ **${failures.length} cell(s) failed**; see the results table` : '\n- every answer passed its checks'}

## Summary: toolwright ÷ each SDK and ÷ raw (calls/s, higher is better for toolwright)

${summaryTable(rows)}

## Goals (issue 14; issue 15's JWT goal when \`toolwright-jwt\` ran)

Each goal is judged by the median of its per-repetition paired ratios (every target of a cell is measured back to back in each repetition), with at least ${MIN_REPS_FOR_VERDICT} repetitions; "reported" rows carry no goal.

${goalsTable(rows, startupRows, rowsPerRepetition(samples, startups))}

${pageCostLines(rows)}
## toolwright modern ÷ raw baseline, per figure (calls/s: higher is better; others: lower is better)

${costTable(rows)}

## Results

${resultsTable(rows, targetIds)}

## Start-up: ms from spawn to the first successful tools/list (legacy: after initialize)

${startupTable(startupRows, targetIds)}
`;
}
