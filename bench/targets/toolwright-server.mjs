// The toolwright server every toolwright target serves: the same tools, limits and checks.
import { serveHttp, serveStdio, ToolServer } from '../../dist/index.js';
import { exitWhenHarnessGoes, jsonSchemas, reportPort, toolPlan, unhitRateLimit } from './common.mjs';

const handlers = {
  sum: ({ a, b }) => String(a + b),
  echo: ({ text }) => text,
  filler: () => 'ok',
};

// The 1 MiB echo cell sends ~1.04 MiB of arguments JSON and expects the text back inline; the
// default 1 MiB argument/result limits would refuse it (or move it to a resource_link), so they
// are raised to the transport's 4 MiB message limit. Every check stays on: the rate limiter
// too, with limits no run reaches (see unhitRateLimit).
const MiB = 1024 * 1024;

/** `extra`: more ToolServer options (the JWT target's scope policy); `Server`: another build's ToolServer (the baseline target's). */
export function buildToolwrightServer(toolCount, extra = {}, Server = ToolServer) {
  const tools = toolPlan(toolCount).map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: jsonSchemas[t.kind],
    handler: handlers[t.kind],
  }));
  return new Server({
    name: 'bench-toolwright',
    version: '1.0.0',
    tools,
    limits: { maxArgumentBytes: 4 * MiB, maxResultBytes: 4 * MiB, rateLimit: unhitRateLimit },
    ...extra,
  });
}

/**
 * Serves a toolwright target's server on `transport` as the harness expects (stdio, or HTTP on a
 * free port it reports), with this build's transports or another build's (`build`: the baseline target's).
 */
export async function serveTarget(server, transport, build = { serveHttp, serveStdio }) {
  if (transport === 'stdio') {
    build.serveStdio(server);
    exitWhenHarnessGoes({ stdioOwnsInput: true });
    return;
  }
  const handle = await build.serveHttp(server, { host: '127.0.0.1', port: 0 });
  exitWhenHarnessGoes({ stdioOwnsInput: false });
  reportPort(handle.port);
}
