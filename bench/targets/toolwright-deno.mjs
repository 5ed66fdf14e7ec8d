// toolwright on Deno 2 (HTTP only; run by the harness with the `deno` of .cache/runtimes/, which
// `node test/runtimes/install.mjs deno` installs): the fetch face served by Deno.serve, as
// docs/runtimes/deno.md serves it, its trail as JSON lines. Reported beside the Node targets.
import { exitWhenHarnessGoes, reportPort, targetArgs } from './common.mjs';
import { buildFetchHandler } from './fetch-face.mjs';

const { transport, toolCount } = targetArgs();
if (transport !== 'http') throw new Error('toolwright-deno is an HTTP target');
const mcp = buildFetchHandler(toolCount, { audit: 'jsonl' });
Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => reportPort(port) }, (request, info) =>
  mcp.fetch(request, { remoteAddress: info.remoteAddr.hostname }),
);
exitWhenHarnessGoes({ stdioOwnsInput: false });
