// The soak (npm run bench -- --soak; issue 14): a long run against one toolwright server per
// transport, sampling its RSS, heap, open descriptors and audit-database size over time, while
// it serves `calls` tools/call (every answer checked), and, spread over the same time, legacy
// sessions opened and abandoned (HTTP), subscriptions/listen streams opened and dropped (HTTP),
// and large results stored (resource_link), read back, and read again once expired.
// Judged: RSS and descriptors flat within 10% after warm-up; every abandoned session and every
// dropped stream reclaimed within its timeout; no answer lost.
import { readdirSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { bigText } from '../targets/common.mjs';
import { answerOf, HttpChannel } from './http-channel.mjs';
import { runOp } from './load.mjs';
import { memory, spawnTarget, waitForPort } from './procs.mjs';
import { median } from './stats.mjs';
import { StdioChannel } from './stdio-channel.mjs';
import { checkInitialize, initializedNotification, initializeRequest, jsonRpc, makeWorkload, modernHeaders } from './workloads.mjs';

/** Short timeouts, so a reclaim is seen within the soak; caps no correct run reaches. */
export function soakSettings(o) {
  const wave = o.soakWave;
  return {
    sessionIdleMs: o.soakSessionIdleMs,
    keepAliveMs: o.soakKeepAliveMs,
    resultTtlMs: o.soakResultTtlMs,
    bigBytes: 98_304,
    maxResultBytes: 65_536,
    // Sessions live for idle + one sweep after their abandonment; the total is never reached.
    maxSessions: o.soakSessions + 10,
    // One wave of streams is open at a time; a wave that leaked would push the next past this cap
    // (503), so a leak fails the run instead of going unseen.
    maxStreams: Math.ceil(wave * 1.5),
    maxConnections: 4 * (o.soakConc + 2 * wave) + 64,
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fdCount = (pid) => readdirSync(`/proc/${pid}/fd`).length;
/** Bytes of the audit trail's SQLite files (audit.db, -wal, -shm) anywhere under the server's audit dir. */
const auditBytes = (dir) => {
  let n = 0;
  try {
    for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (e.isFile() && /^audit\.db/.test(e.name)) n += statSync(`${e.parentPath ?? e.path}/${e.name}`).size;
    }
  } catch {}
  return n;
};

/** One raw HTTP request on a fresh keep-alive connection slot of `channel`. */
async function post(channel, slotIndex, req, headers) {
  const slot = channel.slot(slotIndex);
  return channel.raw(slot.conn, req, headers);
}

/** Soaks one transport; returns its samples, counters and verdicts. */
async function soakTransport(transport, o) {
  const settings = soakSettings(o);
  const proc = spawnTarget('toolwright-soak.mjs', transport, 2, o.nodeArgs, { BENCH_SOAK: JSON.stringify(settings) });
  let heap = { used: NaN, total: NaN };
  let heapRest = '';
  proc.child.stderr.on('data', (s) => {
    const lines = (heapRest + s).split('\n');
    heapRest = lines.pop();
    for (const l of lines) {
      const m = /^SOAK-HEAP (\d+) (\d+)/.exec(l);
      if (m) heap = { used: Number(m[1]), total: Number(m[2]) };
    }
  });
  const newline = transport === 'stdio';
  const problems = [];
  const counts = {
    calls: 0,
    answered: 0,
    sessions: 0,
    sessionsReclaimed: 0,
    streamWaves: 0,
    streams: 0,
    streamsRefused: 0,
    results: 0,
    resultsRead: 0,
    resultsExpired: 0,
  };
  const samples = [];
  const t0 = performance.now();
  /** When the first 10% of the calls had been answered (warm-up ends then, or at MIN_WARMUP_S if later). */
  let tenthOfCallsS = NaN;
  let callsEndS = Infinity;
  let port;
  let stdio;
  try {
    if (transport === 'stdio') stdio = new StdioChannel(proc);
    else port = await waitForPort(proc);
    // Sampling: every sampleMs until the end.
    const sample = () => {
      try {
        samples.push({
          t: (performance.now() - t0) / 1000,
          rss: memory(proc.pid).current,
          heap: heap.used,
          fds: fdCount(proc.pid),
          audit: auditBytes(proc.auditDir),
          answered: counts.answered,
        });
      } catch {}
    };
    sample();
    const sampler = setInterval(sample, o.soakSampleMs);

    // ---- tools/call: `soakCalls` in total, soakConc in flight, every answer checked ----
    const callChannel = stdio ?? new HttpChannel(port);
    const sum = makeWorkload('sum', { era: 'modern', newline });
    let issued = 0;
    const callLoop = async (i) => {
      const slot = callChannel.slot(i);
      while (issued < o.soakCalls && problems.length < 20) {
        issued++;
        counts.calls++;
        try {
          await runOp(slot, sum);
          counts.answered++;
          if (Number.isNaN(tenthOfCallsS) && counts.answered >= o.soakCalls * 0.1) tenthOfCallsS = (performance.now() - t0) / 1000;
        } catch (err) {
          problems.push(`tools/call: ${err.message}`);
        }
      }
    };
    const callsDone = Promise.all(Array.from({ length: o.soakConc }, (_, i) => callLoop(i)));
    let finished = false;
    callsDone.then(() => (finished = true));
    // A stall (no answer for 30 s) fails the run instead of hanging it.
    const stall = (async () => {
      let last = -1;
      let lastMoved = performance.now();
      while (!finished) {
        await sleep(250);
        if (counts.answered !== last) {
          last = counts.answered;
          lastMoved = performance.now();
        } else if (!finished && performance.now() - lastMoved > 30_000) {
          problems.push(`answers stopped at ${counts.answered} of ${o.soakCalls}`);
          issued = o.soakCalls;
          if (stdio) stdio.fail(new Error('stalled'));
          else callChannel.close();
          return;
        }
      }
    })();
    // Side work starts once the calls reach a share of the total, so it spreads over the run.
    const atShare = async (share) => {
      while (!finished && counts.answered < o.soakCalls * share) await sleep(20);
    };

    // ---- large results: stored, read back, and refused once expired ----
    let sideId = 1_000_000_000;
    const side = stdio ?? new HttpChannel(port);
    // HTTP: one connection carries one request at a time, so each concurrent check opens its own.
    const sideSend = async (req, id, headers, channel = side) => {
      if (stdio) return (await stdio.send(req, id)).msg;
      return answerOf(await post(channel, 0, req, headers), id);
    };
    const big = bigText(settings.bigBytes);
    const expiryChecks = [];
    const resultsLoop = (async () => {
      for (let k = 0; k < o.soakResults; k++) {
        await atShare(k / o.soakResults);
        const id = sideId++;
        try {
          const res = await sideSend(jsonRpc(id, 'tools/call', { name: 'big', arguments: {} }, 'modern', newline), id, modernHeaders('tools/call', 'big'));
          const link = res.result?.content?.find((c) => c?.type === 'resource_link');
          if (!link?.uri) throw new Error(`big result was not stored (no resource_link): ${JSON.stringify(res).slice(0, 160)}`);
          counts.results++;
          const readId = sideId++;
          const read = await sideSend(
            jsonRpc(readId, 'resources/read', { uri: link.uri }, 'modern', newline),
            readId,
            modernHeaders('resources/read', link.uri),
          );
          const text = read.result?.contents?.map((c) => c.text ?? '').join('');
          if (text !== big) throw new Error(`stored result read back wrong (${read.error ? read.error.message : `${text?.length} chars`})`);
          counts.resultsRead++;
          const storedAt = performance.now();
          expiryChecks.push(
            (async () => {
              await sleep(Math.max(0, storedAt + o.soakResultTtlMs + 250 - performance.now()));
              const againId = sideId++;
              const own = stdio ? undefined : new HttpChannel(port);
              const again = await sideSend(
                jsonRpc(againId, 'resources/read', { uri: link.uri }, 'modern', newline),
                againId,
                modernHeaders('resources/read', link.uri),
                own,
              ).finally(() => own?.close());
              if (again.error) counts.resultsExpired++;
              else problems.push(`stored result ${link.uri} still readable ${o.soakResultTtlMs + 250} ms after it was stored (ttl ${o.soakResultTtlMs} ms)`);
            })().catch((err) => problems.push(`expired read: ${err.message}`)),
          );
        } catch (err) {
          problems.push(`large result: ${err.message}`);
        }
      }
    })();

    // ---- legacy sessions (HTTP): opened, used once, abandoned; 404 once idle + a sweep have passed ----
    const sessionChecks = [];
    const sessionsLoop = stdio
      ? Promise.resolve()
      : (async () => {
          const sweepMs = Math.min(Math.max(o.soakSessionIdleMs / 4, 1_000), 60_000);
          const waves = Math.ceil(o.soakSessions / o.soakWave);
          for (let w = 0; w < waves; w++) {
            await atShare(w / waves);
            const size = Math.min(o.soakWave, o.soakSessions - w * o.soakWave);
            await Promise.all(
              Array.from({ length: size }, async () => {
                const ch = new HttpChannel(port);
                try {
                  const init = initializeRequest(1, false);
                  const res = await post(ch, 0, init, '');
                  if (res.status !== 200) throw new Error(`initialize: HTTP ${res.status} ${res.body.slice(0, 120)}`);
                  const version = checkInitialize(answerOf(res, 1), 1);
                  const sid = res.headers['mcp-session-id'];
                  if (!sid) throw new Error('initialize gave no Mcp-Session-Id');
                  const hdr = `mcp-protocol-version: ${version}\r\nmcp-session-id: ${sid}\r\n`;
                  const ack = await post(ch, 0, initializedNotification(false), hdr);
                  if (ack.status !== 202 && ack.status !== 200 && ack.status !== 204) throw new Error(`notifications/initialized: HTTP ${ack.status}`);
                  const call = makeWorkload('sum', { era: 'legacy', newline: false });
                  const id = sideId++;
                  const r = await post(ch, 0, call.request(id), hdr);
                  call.check(answerOf(r, id), id);
                  counts.sessions++;
                  ch.close(); // abandoned: no DELETE
                  const abandonedAt = performance.now();
                  sessionChecks.push(
                    (async () => {
                      await sleep(Math.max(0, abandonedAt + o.soakSessionIdleMs + sweepMs + 500 - performance.now()));
                      const probe = new HttpChannel(port);
                      const pid = sideId++;
                      const again = await post(probe, 0, call.request(pid), hdr);
                      probe.close();
                      if (again.status === 404) counts.sessionsReclaimed++;
                      else
                        problems.push(
                          `abandoned session still served (HTTP ${again.status}) ${o.soakSessionIdleMs + sweepMs + 500} ms after its last use (idle timeout ${o.soakSessionIdleMs} ms, sweep every ${sweepMs} ms)`,
                        );
                    })().catch((err) => problems.push(`session probe: ${err.message}`)),
                  );
                } catch (err) {
                  ch.close();
                  problems.push(`legacy session: ${err.message}`);
                }
              }),
            );
          }
        })();

    // ---- subscriptions/listen streams (HTTP): a wave opened, acknowledged, dropped; the next
    // wave waits out the stream timeout, and the stream cap (1.5 waves) refuses it if one leaked ----
    const openWave = async (size) => {
      const chans = [];
      let refused = 0;
      await Promise.all(
        Array.from({ length: size }, async () => {
          const ch = new HttpChannel(port);
          chans.push(ch);
          const id = sideId++;
          const req = jsonRpc(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, 'modern', false);
          const conn = ch.slot(0).conn;
          // The answer never completes (the stream stays open): watch the raw bytes for the ack.
          const acked = new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error('no acknowledgement within 10 s')), 10_000);
            const check = () => {
              const seen = Buffer.concat(conn.body).toString('utf8');
              if (conn.status && conn.status !== 200) {
                clearTimeout(timer);
                return resolve(conn.status);
              }
              if (seen.includes('notifications/subscriptions/acknowledged')) {
                clearTimeout(timer);
                return resolve(200);
              }
              setTimeout(check, 5);
            };
            check();
          });
          const done = ch.raw(conn, req, modernHeaders('subscriptions/listen'));
          done.catch(() => {}); // ends when we drop it
          const status = await Promise.race([acked, done.then((r) => r.status)]);
          if (status !== 200) refused++;
        }),
      );
      return { chans, refused };
    };
    const streamsLoop = stdio
      ? Promise.resolve()
      : (async () => {
          const waves = Math.ceil(o.soakStreams / o.soakWave);
          for (let w = 0; w < waves; w++) {
            await atShare(w / waves);
            const size = Math.min(o.soakWave, o.soakStreams - w * o.soakWave);
            try {
              const { chans, refused } = await openWave(size);
              counts.streamWaves++;
              counts.streams += size - refused;
              counts.streamsRefused += refused;
              if (refused)
                problems.push(
                  `${refused} of ${size} subscriptions/listen streams refused in wave ${w + 1}: earlier dropped streams not reclaimed within ${o.soakKeepAliveMs + 500} ms?`,
                );
              for (const ch of chans) ch.close(); // dropped
            } catch (err) {
              problems.push(`listen wave ${w + 1}: ${err.message}`);
            }
            await sleep(o.soakKeepAliveMs + 500);
          }
        })();

    await callsDone;
    finished = true;
    callsEndS = (performance.now() - t0) / 1000;
    await Promise.all([resultsLoop, sessionsLoop, streamsLoop, stall]);
    await Promise.all([...expiryChecks, ...sessionChecks]);
    // A last wave of a cap's worth of streams proves the dropped ones are gone.
    if (!stdio && o.soakStreams > 0) {
      const { chans, refused } = await openWave(Math.min(o.soakWave, settings.maxStreams));
      for (const ch of chans) ch.close();
      if (refused) problems.push(`final probe: ${refused} streams refused after every wave was dropped`);
      counts.streamsRefused += refused;
    }
    await sleep(Math.max(1_000, o.soakSampleMs * 2));
    sample();
    clearInterval(sampler);
    if (!stdio) callChannel.close();
    if (!stdio) side.close();
  } catch (err) {
    problems.push(`soak ${transport}: ${err.message}`);
  } finally {
    await proc.stop();
  }
  if (counts.answered !== o.soakCalls) problems.push(`${o.soakCalls - counts.answered} of ${o.soakCalls} tools/call answers lost or failed`);
  const warmupEndS = Number.isNaN(tenthOfCallsS) ? NaN : Math.max(tenthOfCallsS, MIN_WARMUP_S);
  return { transport, settings, samples, counts, problems, warmupEndS, tenthOfCallsS, callsEndS, seconds: (performance.now() - t0) / 1000 };
}

/**
 * Warm-up lasts at least this long, however fast the calls go. Under load V8 grows its young
 * generation and the allocator its arenas over the first seconds, whatever the call count: in a
 * 25-second stdio soak of 1,000,000 calls (the first 10% done at 3 s), RSS rose from 91 to
 * 111 MiB until 7 s and then stayed within 3% to the end, with the heap in use flat. The report
 * also shows the figure measured from the 10% mark, without a verdict.
 */
export const MIN_WARMUP_S = 10;

/**
 * "Flat within 10% after warm-up": over the samples from the end of warm-up to the last answer
 * (after it, idle keep-alive connections close and descriptors fall: that is not the load's
 * level), the median of the first fifth against the median of the last fifth (a single GC or a
 * stream wave moves a sample, not a median).
 */
export function flatness(samples, warmupEndS, callsEndS, field) {
  const after = samples.filter((s) => s.t >= warmupEndS && s.t <= callsEndS && Number.isFinite(s[field]));
  if (after.length < 5) return { ok: null, note: `too few samples after warm-up (${after.length})` };
  const fifth = Math.max(1, Math.floor(after.length / 5));
  const first = median(after.slice(0, fifth).map((s) => s[field]));
  const last = median(after.slice(-fifth).map((s) => s[field]));
  const change = (last - first) / first;
  const values = after.map((s) => s[field]);
  return { ok: Math.abs(change) <= 0.1, first, last, change, min: Math.min(...values), max: Math.max(...values) };
}

const SERIES = [
  { field: 'rss', label: 'RSS', unit: 'MiB', scale: 1 / 1048576 },
  { field: 'heap', label: 'heap used', unit: 'MiB', scale: 1 / 1048576 },
  { field: 'fds', label: 'open descriptors', unit: '', scale: 1 },
  { field: 'audit', label: 'audit database', unit: 'MiB', scale: 1 / 1048576 },
];

/** A hand-written SVG: one panel per series, time on x, a dashed line where warm-up ends. */
export function chartSvg({ transport, samples, warmupEndS }) {
  const W = 760;
  const PH = 130;
  const L = 70;
  const R = 20;
  const T = 30;
  const H = T + SERIES.length * (PH + 30) + 10;
  const tMax = Math.max(1e-9, ...samples.map((s) => s.t));
  const x = (t) => L + ((W - L - R) * t) / tMax;
  const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${L}" y="18" font-size="13">toolwright soak, ${esc(transport)}: ${samples.length} samples over ${tMax.toFixed(0)} s</text>`,
  ];
  SERIES.forEach((s, i) => {
    const top = T + i * (PH + 30) + 14;
    const vals = samples.map((p) => p[s.field] * s.scale).filter(Number.isFinite);
    const lo = vals.length ? Math.min(0, ...vals) : 0;
    const hi = vals.length ? Math.max(...vals) * 1.1 || 1 : 1;
    const y = (v) => top + PH - ((v - lo) / (hi - lo)) * PH;
    const fmt = (v) => (s.unit ? `${v.toFixed(1)} ${s.unit}` : v.toFixed(0));
    out.push(`<text x="${L}" y="${top - 4}" font-weight="bold">${esc(s.label)}</text>`);
    out.push(`<rect x="${L}" y="${top}" width="${W - L - R}" height="${PH}" fill="none" stroke="#ccc"/>`);
    out.push(
      `<text x="${L - 4}" y="${top + 10}" text-anchor="end">${esc(fmt(hi))}</text><text x="${L - 4}" y="${top + PH}" text-anchor="end">${esc(fmt(lo))}</text>`,
    );
    if (Number.isFinite(warmupEndS))
      out.push(`<line x1="${x(warmupEndS)}" x2="${x(warmupEndS)}" y1="${top}" y2="${top + PH}" stroke="#999" stroke-dasharray="4 3"/>`);
    const pts = samples.filter((p) => Number.isFinite(p[s.field])).map((p) => `${x(p.t).toFixed(1)},${y(p[s.field] * s.scale).toFixed(1)}`);
    if (pts.length) out.push(`<polyline fill="none" stroke="#1f6fb2" stroke-width="1.5" points="${pts.join(' ')}"/>`);
    if (i === SERIES.length - 1)
      out.push(
        `<text x="${L}" y="${top + PH + 14}">0 s</text><text x="${W - R}" y="${top + PH + 14}" text-anchor="end">${tMax.toFixed(0)} s (dashed: end of warm-up)</text>`,
      );
  });
  out.push('</svg>');
  return out.join('\n');
}

export function soakMarkdown(results, meta, chartNames) {
  const mark = (ok) => (ok === null ? '—' : ok ? '✅ met' : '❌ missed');
  const lines = [
    `# toolwright soak — ${meta.date}`,
    '',
    `- command: \`${meta.command}\``,
    `- machine: ${meta.machine}; load average at start ${meta.loadavg}`,
    `- code: toolwright ${meta.toolwright}`,
    `- per transport: ${meta.calls.toLocaleString('en-US')} tools/call (\`calculate_sum\`, ${meta.conc} in flight, every answer checked); ${results.some((r) => r.transport === 'http') ? `HTTP also ${meta.sessions} legacy sessions opened, used once and abandoned and ${meta.streams} \`subscriptions/listen\` streams opened and dropped, in waves of ${meta.wave}; ` : ''}${meta.results} large results (96 KiB, over the 64 KiB inline limit) stored, read back, and read again after their ${meta.resultTtlMs} ms lifetime. Short timeouts for the soak: session idle ${meta.sessionIdleMs} ms, stream keep-alive ${meta.keepAliveMs} ms; caps no correct run reaches (streams: 1.5 waves, so a leaked wave is refused). Sampled every ${meta.sampleMs} ms: RSS (VmRSS), heap used (reported by the server), open descriptors (/proc/<pid>/fd), audit database size (the SQLite files in its directory).`,
    `- flat = over the samples from the end of warm-up (the first 10% of the calls or the first ${MIN_WARMUP_S} s, whichever ends later) to the last answer, the median of the first fifth against the median of the last fifth, within 10%`,
    '',
  ];
  lines.push('| transport | check | figure | goal | verdict |', '|---|---|---|---|:-:|');
  for (const r of results) {
    const rss = flatness(r.samples, r.warmupEndS, r.callsEndS, 'rss');
    const fds = flatness(r.samples, r.warmupEndS, r.callsEndS, 'fds');
    const pct = (f) =>
      f.ok === null
        ? f.note
        : `${(f.change * 100).toFixed(1)}% (first ${f.first.toFixed(0)} → last ${f.last.toFixed(0)}; min ${f.min.toFixed(0)}, max ${f.max.toFixed(0)})`;
    const mibs = (f) => (f.ok === null ? f : { ...f, first: f.first / 1048576, last: f.last / 1048576, min: f.min / 1048576, max: f.max / 1048576 });
    const c = r.counts;
    lines.push(`| ${r.transport} | RSS after warm-up (MiB) | ${pct(mibs(rss))} | flat within 10% | ${mark(rss.ok)} |`);
    lines.push(`| ${r.transport} | open descriptors after warm-up | ${pct(fds)} | flat within 10% | ${mark(fds.ok)} |`);
    if (r.tenthOfCallsS < r.warmupEndS) {
      const early = flatness(r.samples, r.tenthOfCallsS, r.callsEndS, 'rss');
      lines.push(`| ${r.transport} | RSS from the first 10% of the calls (${r.tenthOfCallsS.toFixed(1)} s) instead | ${pct(mibs(early))} | (reported) | — |`);
    }
    lines.push(
      `| ${r.transport} | answers | ${c.answered.toLocaleString('en-US')} of ${meta.calls.toLocaleString('en-US')} checked in ${r.seconds.toFixed(0)} s | none lost | ${mark(c.answered === meta.calls && !r.problems.some((p) => p.startsWith('tools/call') || p.startsWith('answers')))} |`,
    );
    if (r.transport === 'http') {
      lines.push(
        `| http | abandoned legacy sessions answered 404 after idle + sweep | ${c.sessionsReclaimed} of ${c.sessions} opened (${meta.sessions} asked) | all reclaimed | ${mark(c.sessions === meta.sessions && c.sessionsReclaimed === c.sessions)} |`,
      );
      lines.push(
        `| http | dropped listen streams: waves opened after the stream timeout | ${c.streams} opened in ${c.streamWaves} waves, ${c.streamsRefused} refused (final probe included) | none refused | ${mark(c.streams === meta.streams && c.streamsRefused === 0)} |`,
      );
    }
    lines.push(
      `| ${r.transport} | large results | ${c.resultsRead} of ${c.results} read back, ${c.resultsExpired} refused after expiry (${meta.results} asked) | all stored, read, expired | ${mark(c.results === meta.results && c.resultsRead === c.results && c.resultsExpired === c.results)} |`,
    );
    const audit = r.samples.at(-1)?.audit;
    lines.push(`| ${r.transport} | audit database at the end | ${Number.isFinite(audit) ? `${(audit / 1048576).toFixed(1)} MiB` : '—'} | (reported) | — |`);
  }
  lines.push('');
  for (const r of results) {
    lines.push(`## ${r.transport}`, '', `![${r.transport} soak chart](${chartNames[r.transport]})`, '');
    if (r.problems.length) lines.push('Problems (first 20):', '', ...r.problems.slice(0, 20).map((p) => `- ${p.replace(/\n/g, ' ')}`), '');
    else lines.push('No problems recorded.', '');
  }
  return lines.join('\n');
}

export async function runSoak(o) {
  const results = [];
  for (const transport of o.transportList) {
    console.log(
      `soak ${transport}: ${o.soakCalls} calls${transport === 'http' ? `, ${o.soakSessions} sessions, ${o.soakStreams} streams` : ''}, ${o.soakResults} large results`,
    );
    const r = await soakTransport(transport, o);
    const last = r.samples.at(-1);
    console.log(
      `soak ${transport}: ${r.counts.answered} answered in ${r.seconds.toFixed(1)} s; rss ${(last?.rss / 1048576).toFixed(1)} MiB, fds ${last?.fds}; ${r.problems.length} problem(s)${r.problems.length ? `: ${r.problems[0]}` : ''}`,
    );
    results.push(r);
  }
  return results;
}
