// Runs under callgrind for `npm run bench:instructions`: toolwright's stdio server in this process,
// fed through in-memory streams by a minimal pipelining client (window 16), so nearly every
// instruction counted is the server's. Two calls to os.getPriority() mark the measured half:
// callgrind dumps its counts at each, and the runner reads the second dump (calls N/2 to N,
// after the JIT has settled). Usage: node instructions-driver.mjs <calls> <era> <audit> <scenario> [stdio|http|fetch]
// (http, fetch: instructions-http.mjs).
// Scenarios: sum and structured call calculate_sum; prompt and resource do the same work (add two
// numbers the request names, answer the text) through prompts/get and resources/read.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { jsonSchemas, unhitRateLimit } from '../targets/common.mjs';
import { checkInitialize, initializeRequest, makeWorkload, MODERN } from './workloads.mjs';

const [calls = '24000', era = 'modern', audit = 'sqlite', scenario = 'sum', transport = 'stdio'] = process.argv.slice(2);
const N = Number(calls);
const WINDOW = 16;
/** The legacy initialize's id: the calls count up from 0. */
const INIT_ID = -1;
const auditDir = mkdtempSync(join(os.tmpdir(), 'toolwright-instructions-'));
process.env.TOOLWRIGHT_AUDIT_DIR = auditDir;
const { ToolServer, serveStdio, serveHttp } = await import('../../dist/index.js');

// The load generator's own requests and checks; `structured` adds a list_directory-sized
// structuredContent (9 KiB of JSON) to the same answer.
const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'toolwright-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const workload = ['prompt', 'resource', 'strings'].includes(scenario) ? sameWorkOf(scenario) : makeWorkload('sum', { era, newline: true });
const listing = (n) => ({
  path: 'workspace/data',
  entries: Array.from({ length: 100 }, (_, i) => ({ name: `file-${i}.txt`, type: 'file', size: 1000 + i + n, modified: '2026-11-22T10:00:00.000Z' })),
  truncated: false,
});
const sum = ({ a, b }) => String(a + b);
const sumOfStrings = ({ a, b }) => String(Number(a) + Number(b));
const handler = scenario === 'structured' ? (args) => ({ content: [{ type: 'text', text: sum(args) }], structuredContent: listing(args.a) }) : sum;
const server = new ToolServer({
  name: 'instructions',
  version: '1.0.0',
  ...(audit === 'off' ? { audit: false } : {}),
  // The rate limiter is counted, with limits 24,000 calls never reach.
  limits: { rateLimit: unhitRateLimit },
  // $TOOLWRIGHT_BENCH_REDIS: the rate-limit points go to that Redis (state.redis), as in the toolwright-redis target.
  ...(process.env.TOOLWRIGHT_BENCH_REDIS
    ? { state: { redis: process.env.TOOLWRIGHT_BENCH_REDIS, keyPrefix: `instr-${process.pid}-${Date.now()}` }, requestStateSecret: 'toolwright-bench' }
    : {}),
  tools: [
    { name: 'calculate_sum', description: 'Add two numbers', inputSchema: jsonSchemas.sum, handler },
    // The prompt's arguments as a tool takes them: two strings (scenario `strings`).
    {
      name: 'sum_of_strings',
      description: 'Add two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a', 'b'] },
      handler: sumOfStrings,
    },
  ],
  prompts: [
    {
      name: 'sum',
      description: 'Add two numbers',
      arguments: [
        { name: 'a', required: true },
        { name: 'b', required: true },
      ],
      get: sumOfStrings,
    },
  ],
  resourceTemplates: [{ uriTemplate: 'sum://{a}/{b}', name: 'sum', mimeType: 'text/plain', read: (_uri, variables) => sumOfStrings(variables) }],
});

/**
 * prompts/get of `sum` or resources/read of `sum://a/b` with a = the id, b = 2: the answer's text
 * must be their sum. `strings`: tools/call of `sum_of_strings` with the prompt's arguments, strings
 * as prompt arguments always are (JSON.parse internalizes short string values, numbers it does not).
 */
function sameWorkOf(kind) {
  const meta = era === 'modern' ? `,"_meta":${JSON.stringify(modernMeta)}` : '';
  const pre = '{"jsonrpc":"2.0","id":';
  const mid = {
    prompt: ',"method":"prompts/get","params":{"name":"sum","arguments":{"a":"',
    strings: ',"method":"tools/call","params":{"name":"sum_of_strings","arguments":{"a":"',
    resource: ',"method":"resources/read","params":{"uri":"sum://',
  }[kind];
  const post = kind === 'resource' ? `/2"${meta}}}\n` : `","b":"2"}${meta}}}\n`;
  return {
    request: (id) => ({ pieces: [pre + id + mid + id + post] }),
    check(msg, id) {
      if (msg.id !== id || msg.error !== undefined || !msg.result) throw new Error(`answer ${JSON.stringify(msg).slice(0, 300)} for request ${id}`);
      const text = { prompt: msg.result.messages?.[0]?.content?.text, strings: msg.result.content?.[0]?.text, resource: msg.result.contents?.[0]?.text }[kind];
      if (text !== String(id + 2)) throw new Error(`unexpected text ${JSON.stringify(text)} for request ${id}`);
    },
  };
}

/** The measurement's marks, after each answer. */
function mark(count) {
  // A full collection a quarter in: V8's first mark-compact of the run comes once the old
  // space reaches its limit, early or late by a timer's task; inside the measured half it
  // added ~7,000 instructions per call (8%) to one run and none to the next. (Collecting
  // right before the measured half costs it the JIT's settling: +20%.)
  if (count === N / 4) globalThis.gc?.();
  if (count === N / 2 || count === N) os.getPriority();
}

if (transport === 'http' || transport === 'fetch') {
  if (!(await server.stateReady())) throw new Error('Redis ($TOOLWRIGHT_BENCH_REDIS) cannot be reached');
  const { driveHttp, serveFetchOnNode } = await import('./instructions-http.mjs');
  const failed = await driveHttp(server, transport === 'fetch' ? serveFetchOnNode : serveHttp, workload, N, mark);
  server.close();
  rmSync(auditDir, { recursive: true, force: true });
  if (failed) {
    console.error(`an answer failed its check: ${failed}`);
    process.exit(1);
  }
  process.exit(0);
}

const input = new PassThrough();
let sent = 0;
let answered = 0;
let pending = '';
const send = () => (pending += workload.request(sent++).pieces.join(''));
let finish;
const finished = new Promise((resolve) => (finish = resolve));
let failure;
const output = new Writable({
  write(chunk, _encoding, callback) {
    // Answers are counted by newline (the server writes whole lines); the first window's are
    // also parsed and checked, so a run that only produced errors is reported, not measured.
    let start = 0;
    let at;
    while ((at = chunk.indexOf(10, start)) !== -1) {
      // A notification (`{"jsonrpc":"2.0","method":…`: a legacy session hears list changes) is no answer.
      if (chunk[start + 18] === 0x6d) {
        start = at + 1;
        continue;
      }
      if (answered < WINDOW) {
        const msg = JSON.parse(chunk.toString('utf8', start, at));
        try {
          if (msg.id === INIT_ID) checkInitialize(msg, INIT_ID);
          else workload.check(msg, msg.id);
        } catch (err) {
          failure ??= err.message;
        }
      }
      start = at + 1;
      mark(++answered);
      // Each call's answer lets the next call go; the legacy initialize's answer (0) does not,
      // so both eras keep exactly WINDOW calls in flight.
      if (answered > 0 && sent < N) send();
    }
    if (pending) {
      input.write(pending);
      pending = '';
    }
    if (answered >= N) finish();
    callback();
  },
});
if (!(await server.stateReady())) throw new Error('Redis ($TOOLWRIGHT_BENCH_REDIS) cannot be reached');
serveStdio(server, { input, output });
if (era === 'legacy') {
  input.write(initializeRequest(INIT_ID, true).pieces.join(''));
  answered--; // the initialize answer is not a call
}
for (let i = 0; i < WINDOW; i++) send();
input.write(pending);
pending = '';
await finished;
server.close();
rmSync(auditDir, { recursive: true, force: true });
if (failure) {
  console.error(`an answer failed its check: ${failure}`);
  process.exit(1);
}
