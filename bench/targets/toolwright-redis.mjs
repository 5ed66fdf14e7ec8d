// toolwright with its shared state in Redis (HTTP only): the same server as toolwright.mjs, with
// `state: { redis: $TOOLWRIGHT_BENCH_REDIS }`, so every call's rate-limit points (per caller and per
// tool) are taken in Redis (two round trips a call) instead of in memory. A key prefix of its own
// per start (or $TOOLWRIGHT_BENCH_REDIS_PREFIX, shared by toolwright-nginx3's instances): counts
// start empty, and keys expire with their windows.
import { serveHttp } from '../../dist/index.js';
import { exitWhenHarnessGoes, reportPort, targetArgs } from './common.mjs';
import { buildToolwrightServer } from './toolwright-server.mjs';

const { transport, toolCount } = targetArgs();
if (transport !== 'http') throw new Error('toolwright-redis is an HTTP target');
const url = process.env.TOOLWRIGHT_BENCH_REDIS;
if (!url) throw new Error('toolwright-redis needs TOOLWRIGHT_BENCH_REDIS=redis://… (a Redis the run may write to)');

const server = buildToolwrightServer(toolCount, {
  state: { redis: url, keyPrefix: process.env.TOOLWRIGHT_BENCH_REDIS_PREFIX || `bench-${process.pid}-${Date.now()}` },
  // Shared state needs one secret for every instance; the bench's instances share this one.
  requestStateSecret: process.env.TOOLWRIGHT_BENCH_REQUEST_STATE_SECRET || 'toolwright-bench',
});
if (!(await server.stateReady())) throw new Error('toolwright-redis: Redis cannot be reached');
const handle = await serveHttp(server, { host: '127.0.0.1', port: 0 });
exitWhenHarnessGoes({ stdioOwnsInput: false });
reportPort(handle.port);
