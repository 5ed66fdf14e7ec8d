// toolwright on Bun (HTTP only; run by the harness with the `bun` of .cache/runtimes/, which
// `node test/runtimes/install.mjs bun` installs): the fetch face served by Bun.serve, as
// docs/runtimes/bun.md serves it, its trail as JSON lines. Reported beside the Node targets.
import { exitWhenHarnessGoes, reportPort, targetArgs } from './common.mjs';
import { buildFetchHandler } from './fetch-face.mjs';

const { transport, toolCount } = targetArgs();
if (transport !== 'http') throw new Error('toolwright-bun is an HTTP target');
const mcp = buildFetchHandler(toolCount, { audit: 'jsonl' });
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch: (request, bunServer) => mcp.fetch(request, { remoteAddress: bunServer.requestIP(request)?.address }),
});
reportPort(server.port);
exitWhenHarnessGoes({ stdioOwnsInput: false });
