// toolwright target: one ToolServer serving both eras (the client picks the era).
import { ToolServer, serveHttp, serveStdio } from '../../dist/index.js';
import { exitWhenHarnessGoes, jsonSchemas, reportPort, targetArgs, toolPlan, unhitRateLimit } from './common.mjs';

const { transport, toolCount } = targetArgs();

const handlers = {
  sum: ({ a, b }) => String(a + b),
  echo: ({ text }) => text,
  filler: () => 'ok',
};
const tools = toolPlan(toolCount).map((t) => ({
  name: t.name,
  description: t.description,
  inputSchema: jsonSchemas[t.kind],
  handler: handlers[t.kind],
}));
// The 1 MiB echo cell sends ~1.04 MiB of arguments JSON and expects the text back inline; the
// default 1 MiB argument/result limits would refuse it (or move it to a resource_link), so they
// are raised to the transport's 4 MiB message limit. Every check stays on: the rate limiter
// too, with limits no run reaches (see unhitRateLimit).
const MiB = 1024 * 1024;
const server = new ToolServer({
  name: 'bench-toolwright',
  version: '1.0.0',
  tools,
  limits: { maxArgumentBytes: 4 * MiB, maxResultBytes: 4 * MiB, rateLimit: unhitRateLimit },
});

if (transport === 'stdio') {
  serveStdio(server);
  exitWhenHarnessGoes({ stdioOwnsInput: true });
} else {
  const handle = await serveHttp(server, { host: '127.0.0.1', port: 0 });
  exitWhenHarnessGoes({ stdioOwnsInput: false });
  reportPort(handle.port);
}
