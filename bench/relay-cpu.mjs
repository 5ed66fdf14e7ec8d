#!/usr/bin/env node
// CPU per call of the gateway's relay, in ONE process (reported, never a test). Wall-clock on a
// shared 2-core machine swings with the neighbours' load; process.cpuUsage() per call hardly does.
// Paths (calculate_sum, modern era, `conc` calls in flight):
//   local:          a ToolServer's connection given the request text (server cost alone)
//   gateway-inproc: the same, to a gateway whose calculate_sum is an in-process ToolServer's
//                   (gateway + toolwright client + memory transport + upstream server)
//   raw-http:       a hand-written HTTP client → serveHttp (HTTP server cost, client ~free)
//   client-http:    toolwright's ToolClient → serveHttp (client + HTTP + server)
//   gateway-http:   raw HTTP → a gateway → ToolClient over HTTP → serveHttp (issue 32's benchmark, in one process)
// Each path: warm-up, then `n` calls timed by process.cpuUsage (user + system); µs per call,
// median of `reps`. Usage: npm run build && node bench/relay-cpu.mjs [--n 20000] [--reps 5] [--conc 16] [--only a,b]
import { ToolClient } from '../dist/client.js';
import { mount } from '../dist/gateway.js';
import { serveHttp, ToolServer } from '../dist/index.js';
import { HttpChannel } from './lib/http-channel.mjs';
import { median } from './lib/stats.mjs';
import { makeWorkload } from './lib/workloads.mjs';
import { jsonSchemas, unhitRateLimit } from './targets/common.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const n = Number(option('n', 20_000));
const reps = Number(option('reps', 5));
const conc = Number(option('conc', 16));
const warmup = Number(option('warmup', Math.min(n, 5_000)));
const only = option('only', '').split(',').filter(Boolean);

const limits = { maxArgumentBytes: 4 << 20, maxResultBytes: 4 << 20, rateLimit: unhitRateLimit };
const sumServer = (name) =>
  new ToolServer({
    name,
    version: '1.0.0',
    limits,
    tools: [{ name: 'calculate_sum', description: 'Add two numbers', inputSchema: jsonSchemas.sum, handler: ({ a, b }) => String(a + b) }],
  });
const gatewayOver = async (upstream) => {
  const gateway = new ToolServer({ name: 'bench-gateway', version: '1.0.0', limits });
  const handle = mount(gateway, 'bench', upstream, { prefix: false, maxConcurrency: 256 });
  await handle.ready;
  return { gateway, close: () => handle.close?.() };
};

const workload = makeWorkload('sum', { era: 'modern', newline: false });

/** A path's one call: `call(id)` resolves once its answer is checked. */
function connectionCaller(server) {
  const connection = server.connect({ transport: 'bench' });
  return async (id) => {
    const reply = await connection.receive(workload.request(id).pieces[0]);
    workload.check(JSON.parse(reply.json), id);
  };
}

function httpCaller(port) {
  const channel = new HttpChannel(port);
  const call = async (id, slot) => {
    const { msg } = await channel.slot(slot).send(workload.request(id), id, workload.httpHeaders);
    workload.check(msg, id);
  };
  return { call, close: () => channel.close() };
}

async function clientCaller(port) {
  const client = await ToolClient.connect({ url: `http://127.0.0.1:${port}/mcp` }, { era: 'modern' });
  const call = async (id) => {
    const result = await client.callTool('calculate_sum', { a: id, b: 2 });
    if (result.isError || result.content[0]?.text !== String(id + 2)) throw new Error(`unexpected result ${JSON.stringify(result).slice(0, 200)}`);
  };
  return { call, close: () => client.close() };
}

const paths = {
  async local() {
    return { call: connectionCaller(sumServer('bench-local')), close() {} };
  },
  async 'gateway-inproc'() {
    const { gateway, close } = await gatewayOver({ server: sumServer('bench-upstream') });
    return { call: connectionCaller(gateway), close };
  },
  async 'raw-http'() {
    const http = await serveHttp(sumServer('bench-http'), { host: '127.0.0.1', port: 0 });
    const { call, close } = httpCaller(http.port);
    return { call, close: async () => (close(), await http.close()) };
  },
  async 'client-http'() {
    const http = await serveHttp(sumServer('bench-http'), { host: '127.0.0.1', port: 0 });
    const { call, close } = await clientCaller(http.port);
    return { call, close: async () => (await close(), await http.close()) };
  },
  async 'gateway-http'() {
    const upstream = await serveHttp(sumServer('bench-upstream'), { host: '127.0.0.1', port: 0 });
    const { gateway, close: closeMount } = await gatewayOver({ url: `http://127.0.0.1:${upstream.port}/mcp` });
    const front = await serveHttp(gateway, { host: '127.0.0.1', port: 0 });
    const { call, close } = httpCaller(front.port);
    return { call, close: async () => (close(), await front.close(), await closeMount(), await upstream.close()) };
  },
};

/** `count` calls, `conc` in flight; ids start at `first` (so every answer differs). */
async function drive(call, first, count) {
  let next = first;
  const end = first + count;
  const lane = async (slot) => {
    while (next < end) await call(next++, slot);
  };
  await Promise.all(Array.from({ length: Math.min(conc, count) }, (_, slot) => lane(slot)));
}

async function measure(name) {
  const path = await paths[name]();
  try {
    let id = 1;
    await drive(path.call, id, warmup);
    id += warmup;
    const perCall = [];
    for (let r = 0; r < reps; r++) {
      globalThis.gc?.();
      const before = process.cpuUsage();
      await drive(path.call, id, n);
      const used = process.cpuUsage(before);
      id += n;
      perCall.push((used.user + used.system) / n);
    }
    return perCall;
  } finally {
    await path.close();
  }
}

console.log(`CPU µs per calculate_sum call (user + system), ${n} calls × ${reps} reps, ${conc} in flight, node ${process.version}`);
for (const name of Object.keys(paths)) {
  if (only.length && !only.includes(name)) continue;
  const perCall = await measure(name);
  console.log(`  ${name.padEnd(15)} median ${median(perCall).toFixed(1).padStart(7)} µs   (reps: ${perCall.map((v) => v.toFixed(1)).join(', ')})`);
}
process.exit(0);
