// The load driver: `conc` slots each run ops back to back (stdio: all slots share one pipe,
// i.e. a window of `conc` pipelined requests; HTTP: one keep-alive connection per slot).
// Warm-up first, then a fixed-duration measured phase, then a drain of what is in flight.
import { performance } from 'node:perf_hooks';
import { cpuSeconds, memory, resetPeak } from './procs.mjs';

let nextId = 1_000;

class Samples {
  constructor() {
    this.data = new Float64Array(1 << 14);
    this.n = 0;
  }
  push(v) {
    if (this.n === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.n++] = v;
  }
  percentile(p) {
    if (this.n === 0) return NaN;
    const sorted = this.data.slice(0, this.n).sort();
    return sorted[Math.min(this.n - 1, Math.ceil((p / 100) * this.n) - 1)];
  }
}

/**
 * Runs one op (one or more requests) on a slot. Returns { requests, latency }: latency sums
 * each request's time from write to the last byte of its answer, so the load generator's
 * own parsing and checking between pages does not count against the server.
 */
export async function runOp(slot, workload) {
  let state = null;
  let requests = 0;
  let latency = 0;
  do {
    const id = nextId++;
    const { msg, rtt } = await slot.send(workload.request(id, state), id, workload.httpHeaders);
    state = workload.check(msg, id, state);
    latency += rtt;
    requests++;
  } while (state);
  return { requests, latency };
}

// `pid` may be a list (a target of several server processes: their CPU and memory summed);
// `sidePids` are processes measured apart (a load balancer in front): their CPU per call.
export async function runCell({ channel, workload, conc, warmupMs, durationMs, pid, sidePids = [] }) {
  const latencies = new Samples();
  let measuring = false;
  let stopping = false;
  let error = null;
  let ops = 0;
  let requests = 0;

  const loop = async (i) => {
    const slot = channel.slot(i);
    while (!stopping && !error) {
      try {
        const op = await runOp(slot, workload);
        if (measuring) {
          latencies.push(op.latency);
          ops++;
          requests += op.requests;
        }
      } catch (err) {
        error ??= err;
      }
    }
  };

  let tStart = 0;
  let cpu0 = 0;
  let side0 = 0;
  let client0 = null;
  let peakReset = false;
  const timers = [];
  const done = Promise.all(Array.from({ length: conc }, (_, i) => loop(i)));
  timers.push(
    setTimeout(() => {
      try {
        cpu0 = cpuSeconds(pid);
        side0 = cpuSeconds(sidePids);
        client0 = process.cpuUsage();
        peakReset = resetPeak(pid);
      } catch (err) {
        error ??= err;
      }
      tStart = performance.now();
      measuring = true;
      timers.push(setTimeout(() => (stopping = true), durationMs));
    }, warmupMs),
  );
  // Nothing should take this long; a stuck server fails the cell instead of the run.
  const limitMs = warmupMs + durationMs + 30_000;
  let hung = false;
  await Promise.race([
    done,
    new Promise((resolve) =>
      timers.push(
        setTimeout(() => {
          hung = true;
          resolve();
        }, limitMs),
      ),
    ),
  ]);
  for (const t of timers) clearTimeout(t);
  if (hung) {
    stopping = true;
    error ??= new Error(`no answer within ${limitMs} ms (server stuck?)`);
  }
  const tEnd = performance.now();
  const client = client0 ? process.cpuUsage(client0) : null;
  let cpu1 = NaN;
  let side1 = NaN;
  let mem = { peak: NaN, current: NaN };
  try {
    cpu1 = cpuSeconds(pid);
    side1 = cpuSeconds(sidePids);
    mem = memory(pid);
  } catch (err) {
    error ??= err;
  }
  const seconds = (tEnd - tStart) / 1000;
  return {
    error: error
      ? String(error.message ?? error)
          .split('\n')
          .slice(0, 3)
          .join(' | ')
      : null,
    hung,
    ops,
    requests,
    seconds,
    opsPerSec: ops / seconds,
    p50: latencies.percentile(50),
    p99: latencies.percentile(99),
    cpuUsPerOp: ops ? ((cpu1 - cpu0) * 1e6) / ops : NaN,
    ...(sidePids.length ? { sideCpuUsPerOp: ops ? ((side1 - side0) * 1e6) / ops : NaN } : {}),
    // the load generator's own cost, to tell when it (not the server) is the limit
    clientCpuUsPerOp: ops && client ? (client.user + client.system) / ops : NaN,
    serverCpuShare: seconds > 0 ? (cpu1 - cpu0) / seconds : NaN,
    peakRss: mem.peak,
    peakIsPerCell: peakReset,
  };
}
