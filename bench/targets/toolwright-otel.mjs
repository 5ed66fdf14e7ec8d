// toolwright with the OpenTelemetry Node SDK registered (issue 23): the same server as
// toolwright.mjs, its spans and metrics exported over OTLP/HTTP (JSON, batched) to a receiver in
// this process on 127.0.0.1 that reads and drops them. What it measures: recording a SERVER span
// and a histogram point per call, batching and exporting them; the receiver's own cost is on
// the same cores, as a collector's would be on a one-machine deployment.
import { createServer } from 'node:http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { targetArgs } from './common.mjs';

const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
receiver.unref();
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${receiver.address().port}`;
process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
process.env.OTEL_LOGS_EXPORTER = 'none';
const sdk = new NodeSDK({ serviceName: 'toolwright-bench' });
sdk.start();

// After the SDK: the server is built with the providers registered, as toolwright serve does.
const { buildToolwrightServer, serveTarget } = await import('./toolwright-server.mjs');
const { transport, toolCount } = targetArgs();
const server = buildToolwrightServer(toolCount);

await serveTarget(server, transport);
