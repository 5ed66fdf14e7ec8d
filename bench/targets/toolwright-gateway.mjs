// Gateway target: a ToolServer whose only tools are an upstream's, mounted unprefixed over
// Streamable HTTP from BENCH_UPSTREAM_URL (a toolwright target started by bench/gateway.mjs), or
// with BENCH_UPSTREAM=inproc the toolwright target's server itself, mounted in this process
// (`mount` takes another ToolServer: no second HTTP hop, no second process).
// Same limits as the toolwright target; it reports its port once the upstream's tools are in.
import { serveHttp, ToolServer } from '../../dist/index.js';
import { mount } from '../../dist/gateway.js';
import { exitWhenHarnessGoes, reportPort, targetArgs, unhitRateLimit } from './common.mjs';
import { buildToolwrightServer } from './toolwright-server.mjs';

const { transport, toolCount } = targetArgs();
if (transport !== 'http') throw new Error('the gateway target serves HTTP only');
// The in-process upstream keeps no trail of its own: the gateway records each relayed call (naming
// the upstream), once, as the direct target records each of its calls (docs/gateway.md).
const upstream = process.env.BENCH_UPSTREAM === 'inproc' ? buildToolwrightServer(toolCount, { audit: false }) : process.env.BENCH_UPSTREAM_URL;
if (!upstream) throw new Error('BENCH_UPSTREAM_URL is not set');
const MiB = 1024 * 1024;
const server = new ToolServer({
  name: 'bench-gateway',
  version: '1.0.0',
  limits: { maxArgumentBytes: 4 * MiB, maxResultBytes: 4 * MiB, rateLimit: unhitRateLimit },
});
const handle = mount(server, 'bench', typeof upstream === 'string' ? { url: upstream } : { server: upstream }, { prefix: false, maxConcurrency: 256 });
await handle.ready;
const http = await serveHttp(server, { host: '127.0.0.1', port: 0 });
exitWhenHarnessGoes({ stdioOwnsInput: false });
reportPort(http.port);
