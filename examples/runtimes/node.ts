// A toolwright server on Node (docs/runtimes/node.md), twice: on a server of its own, and
// mounted in a node:http app beside a route of the app's.
//   npx tsx node.ts
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineTool, ToolServer } from 'toolwright';
import { createHttpHandler, serveHttp } from 'toolwright/http';

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

const server = new ToolServer({ name: 'on-node', version: '1.0.0', tools: [sum, count] });

// A server of its own: header and request deadlines, connection caps, loopback Host/Origin rules.
const own = await serveHttp(server, { host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
console.log(`serving on ${own.url}`);

// Mounted: the endpoint's Node adapter in an app of one's own, which sets the socket limits.
const mcp = createHttpHandler(server, { allowedHosts: ['127.0.0.1', 'localhost'] });
const app = createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (req, res) => {
  if (req.url === '/health') return void res.end('ok');
  mcp.handle(req, res);
});
app.listen(Number(process.env.MOUNTED_PORT ?? 3001), '127.0.0.1', () => {
  console.log(`mounted on http://127.0.0.1:${(app.address() as AddressInfo).port}/mcp`);
});
