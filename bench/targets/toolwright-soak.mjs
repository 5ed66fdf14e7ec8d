// The soak's toolwright server (npm run bench -- --soak): the bench tools plus `big`, whose
// result is larger than maxResultBytes, so it is stored and sent as a resource_link that
// expires. Every check stays on; the limits the soak would otherwise hit are raised past what
// it reaches (rate limits, connections per address), and the timeouts it verifies are made
// short (legacy session idle, stream keep-alive, stored-result lifetime). Settings come from
// $BENCH_SOAK (JSON, written by bench/lib/soak.mjs). The heap is reported on stderr.
import { serveHttp, serveStdio, ToolServer } from '../../dist/index.js';
import { bigText, exitWhenHarnessGoes, jsonSchemas, reportPort, targetArgs, unhitRateLimit } from './common.mjs';

const { transport } = targetArgs();
const s = JSON.parse(process.env.BENCH_SOAK ?? '{}');

const BIG_TEXT = bigText(s.bigBytes ?? 98_304);
const server = new ToolServer({
  name: 'bench-toolwright-soak',
  version: '1.0.0',
  tools: [
    { name: 'calculate_sum', description: 'Add two numbers', inputSchema: jsonSchemas.sum, handler: ({ a, b }) => String(a + b) },
    { name: 'echo', description: 'Echo the text back', inputSchema: jsonSchemas.echo, handler: ({ text }) => text },
    { name: 'big', description: 'A result too large to send inline', inputSchema: { type: 'object', properties: {} }, handler: () => BIG_TEXT },
  ],
  limits: {
    rateLimit: unhitRateLimit,
    maxResultBytes: s.maxResultBytes ?? 65_536,
    resultStore: { ttlMs: s.resultTtlMs ?? 2_000 },
  },
});

// The heap as the server sees it, for the soak's chart (stdout is the protocol on stdio).
setInterval(() => {
  const m = process.memoryUsage();
  process.stderr.write(`SOAK-HEAP ${m.heapUsed} ${m.heapTotal}\n`);
}, 250).unref();

if (transport === 'stdio') {
  serveStdio(server);
  exitWhenHarnessGoes({ stdioOwnsInput: true });
} else {
  const handle = await serveHttp(server, {
    host: '127.0.0.1',
    port: 0,
    sessionIdleMs: s.sessionIdleMs ?? 2_000,
    keepAliveMs: s.keepAliveMs ?? 1_000,
    maxSessions: s.maxSessions ?? 1_000,
    maxStreams: s.maxStreams ?? 256,
    maxStreamsPerPrincipal: s.maxStreams ?? 256,
    maxConnections: s.maxConnections ?? 1_024,
    maxConnectionsPerAddress: s.maxConnections ?? 1_024,
  });
  exitWhenHarnessGoes({ stdioOwnsInput: false });
  reportPort(handle.port);
}
