// @modelcontextprotocol/sdk 1.x target (legacy era only): McpServer with zod shapes;
// stdio via StdioServerTransport; Streamable HTTP in stateless mode (sessionIdGenerator
// undefined, a fresh server + transport per request, as the SDK documents).
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { exitWhenHarnessGoes, reportPort, sdkHandlers as handlers, targetArgs, toolPlan } from './common.mjs';

const { transport, toolCount } = targetArgs();

const shapes = {
  sum: { a: z.number(), b: z.number() },
  echo: { text: z.string() },
  filler: { query: z.string(), limit: z.number().int().min(1).max(100).optional() },
};
const plan = toolPlan(toolCount);

function buildServer() {
  const server = new McpServer({ name: 'bench-sdk1', version: '1.0.0' }, { capabilities: { tools: {} } });
  for (const t of plan) server.registerTool(t.name, { description: t.description, inputSchema: shapes[t.kind] }, handlers[t.kind]);
  return server;
}

if (transport === 'stdio') {
  await buildServer().connect(new StdioServerTransport());
  exitWhenHarnessGoes({ stdioOwnsInput: true });
} else {
  const httpServer = http.createServer(async (req, res) => {
    if (!req.url?.startsWith('/mcp')) return void res.writeHead(404).end();
    if (req.method !== 'POST') {
      res.writeHead(405, { 'content-type': 'application/json', allow: 'POST' });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
    }
    const server = buildServer();
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void t.close();
      void server.close();
    });
    try {
      await server.connect(t);
      await t.handleRequest(req, res);
    } catch (e) {
      console.error(e);
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  httpServer.listen(0, '127.0.0.1', () => reportPort(httpServer.address().port));
  exitWhenHarnessGoes({ stdioOwnsInput: false });
}
