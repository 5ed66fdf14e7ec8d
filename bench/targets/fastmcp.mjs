// fastmcp target (TypeScript `fastmcp` on npm, built on @modelcontextprotocol/sdk 1.x): legacy
// era only (fastmcp implements the handshake-based revisions, up to 2025-11-25). stdio via
// `start({ transportType: 'stdio' })`; HTTP via `httpStream` in its default stateful mode (an
// Mcp-Session-Id from initialize, which the harness carries on every request), at /mcp.
// Server-initiated pings and roots/list are turned off: the load generator answers no server
// requests (it speaks only to measure), and neither is part of serving a tools/call.
import net from 'node:net';
import { FastMCP } from 'fastmcp';
import { z } from 'zod';
import { exitWhenHarnessGoes, reportPort, targetArgs, toolPlan } from './common.mjs';

const { transport, toolCount } = targetArgs();

const schemas = {
  sum: z.object({ a: z.number(), b: z.number() }),
  echo: z.object({ text: z.string() }),
  filler: z.object({ query: z.string(), limit: z.number().int().min(1).max(100).optional() }),
};
const execute = {
  sum: async ({ a, b }) => String(a + b),
  echo: async ({ text }) => text,
  filler: async () => 'ok',
};

// fastmcp's default logger is `console`, whose debug/info/log go to stdout, which on stdio is the
// protocol stream (its start-up debug line breaks the first answer): everything goes to stderr.
const toStderr = (...args) => console.error(...args);
const logger = { debug: () => {}, info: () => {}, log: toStderr, warn: toStderr, error: toStderr };
const server = new FastMCP({ name: 'bench-fastmcp', version: '1.0.0', logger, ping: { enabled: false }, roots: { enabled: false } });
for (const t of toolPlan(toolCount)) server.addTool({ name: t.name, description: t.description, parameters: schemas[t.kind], execute: execute[t.kind] });

if (transport === 'stdio') {
  await server.start({ transportType: 'stdio' });
  exitWhenHarnessGoes({ stdioOwnsInput: true });
} else {
  // fastmcp takes a port and does not say which one it bound, so port 0 cannot be used: ask
  // the kernel for a free one first (a race with another process is possible but harmless:
  // the start then fails and the harness reports it).
  const port = await new Promise((resolve, reject) => {
    const probe = net.createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  await server.start({ transportType: 'httpStream', httpStream: { host: '127.0.0.1', port, endpoint: '/mcp' } });
  exitWhenHarnessGoes({ stdioOwnsInput: false });
  reportPort(port);
}
