// A toolwright server on Deno 2, served by Deno.serve (docs/runtimes/deno.md).
//   deno run --allow-net --allow-env --allow-read --allow-write --allow-sys deno.ts
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

// The audit trail as JSON lines, written before each answer (the SQLite trail's native driver would need --allow-ffi).
const server = new ToolServer({ name: 'on-deno', version: '1.0.0', tools: [sum, count], audit: new JsonlAuditSink('audit.jsonl') });
// Loopback only: the Host must name it, and no browser page (Origin) may call.
const mcp = createHttpHandler(server, { allowedHosts: ['127.0.0.1', 'localhost'] });

const port = Number(Deno.env.get('PORT') ?? 8000);
Deno.serve(
  { hostname: '127.0.0.1', port, onListen: ({ port }) => console.log(`serving on http://127.0.0.1:${port}/mcp`) },
  // The client's address keys the per-address stream cap and the auth-failure throttle.
  (request, info) => mcp.fetch(request, { remoteAddress: info.remoteAddr.hostname }),
);
