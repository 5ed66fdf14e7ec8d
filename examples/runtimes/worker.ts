// A toolwright server as a Cloudflare Worker (docs/runtimes/workers.md); wrangler.toml:
//   main = "worker.ts"
//   compatibility_date = "2025-09-01"
//   compatibility_flags = ["nodejs_compat"]
import { defineTool, ToolServer } from 'toolwright';
import { createHttpHandler, type HttpHandler } from 'toolwright/http';

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

let mcp: HttpHandler | undefined;

export default {
  fetch(request: Request): Promise<Response> {
    // Built on the first request, not at start-up (a Worker may not set timers or draw random
    // values outside a request), then kept by the isolate for the requests that follow.
    mcp ??= createHttpHandler(
      // No file system to keep an audit trail in: give `audit` a sink of your own (a queue, D1), or none.
      new ToolServer({ name: 'on-workers', version: '1.0.0', tools: [sum, count], audit: false }),
      // Isolates come and go and requests land on any of them: no legacy sessions, the stateless era alone.
      { legacySessions: false },
    );
    return mcp.fetch(request, { remoteAddress: request.headers.get('cf-connecting-ip') ?? undefined });
  },
};
