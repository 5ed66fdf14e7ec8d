// toolwright's HTTP endpoint through its web-standard face on Node (HTTP only): the handler's
// `fetch` served by Hono's Node adapter (@hono/node-server), as a Node application built on
// fetch handlers serves it. Against toolwright.mjs (serveHttp, the Node adapter) it measures
// what the Request/Response round trip costs on Node (issue 33: ≥ 0.9× the Node adapter).
import { serve } from '@hono/node-server';
import { exitWhenHarnessGoes, reportPort, targetArgs } from './common.mjs';
import { buildFetchHandler } from './fetch-face.mjs';

const { transport, toolCount } = targetArgs();
if (transport !== 'http') throw new Error('toolwright-fetch is an HTTP target');
const mcp = buildFetchHandler(toolCount);
const server = serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch: (request, env) => mcp.fetch(request, { remoteAddress: env.incoming.socket.remoteAddress }),
});
server.once('listening', () => reportPort(server.address().port));
exitWhenHarnessGoes({ stdioOwnsInput: false });
