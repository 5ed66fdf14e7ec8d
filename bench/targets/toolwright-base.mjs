// The toolwright target built from another commit (issue 31: this build against d2219cf, side
// by side): the same server as toolwright.mjs, its ToolServer and transports loaded from
// $TOOLWRIGHT_BENCH_BASE/dist (a built copy of that commit; `node bench/baseline.mjs <commit>`
// makes one and prints the command that runs both).
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { targetArgs } from './common.mjs';
import { buildToolwrightServer, serveTarget } from './toolwright-server.mjs';

const base = process.env.TOOLWRIGHT_BENCH_BASE;
if (!base) throw new Error('toolwright-base needs $TOOLWRIGHT_BENCH_BASE: a built checkout of the commit to compare (node bench/baseline.mjs <commit>)');
const { ToolServer, serveHttp, serveStdio } = await import(pathToFileURL(join(resolve(base), 'dist', 'index.js')).href);
const { transport, toolCount } = targetArgs();
const server = buildToolwrightServer(toolCount, {}, ToolServer);

await serveTarget(server, transport, { serveHttp, serveStdio });
