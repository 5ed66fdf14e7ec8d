// A toolwright server on Bun, served by Bun.serve (docs/runtimes/bun.md).
//   bun bun.ts
import { defineTool, JsonlAuditSink, ToolServer } from 'toolwright';
import { createHttpHandler } from 'toolwright/http';

const sum = defineTool({
  name: 'calculate_sum',
  description: 'Adds a and b. No side effects.',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  handler: ({ a, b }) => String(a + b),
});
const count = defineTool({
  name: 'count',
  description: 'Counts to n, reporting progress at each step.',
  inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 10 } }, required: ['n'] },
  handler: async ({ n }, ctx) => {
    for (let i = 1; i <= n; i++) {
      ctx.progress(i, n);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return `counted ${n}`;
  },
});

// The audit trail as JSON lines, written before each answer.
const server = new ToolServer({ name: 'on-bun', version: '1.0.0', tools: [sum, count], audit: new JsonlAuditSink('audit.jsonl') });
// Loopback only: the Host must name it, and no browser page (Origin) may call.
const mcp = createHttpHandler(server, { allowedHosts: ['127.0.0.1', 'localhost'] });

const listening = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT ?? 3000),
  // Bun closes a connection idle for 10 s by default: a quiet SSE stream (a long call, a
  // subscription) would be cut. 0 turns that off; the endpoint sends keep-alives of its own.
  idleTimeout: 0,
  // The client's address keys the per-address stream cap and the auth-failure throttle.
  fetch: (request, server) => mcp.fetch(request, { remoteAddress: server.requestIP(request)?.address }),
});
console.log(`serving on http://127.0.0.1:${listening.port}/mcp`);
