// @modelcontextprotocol/server 2.x target, following the SDK's documented recipes:
// serveStdio(factory) for stdio (era chosen per connection), createMcpHandler(factory)
// bridged to node:http for Streamable HTTP (modern stateless; legacy via the stateless fallback).
import http from 'node:http';
import { Readable } from 'node:stream';
import {
  McpServer,
  createMcpHandler,
  fromJsonSchema,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import { exitWhenHarnessGoes, jsonSchemas, reportPort, sdkHandlers as handlers, targetArgs, toolPlan } from './common.mjs';

const { transport, toolCount } = targetArgs();

// Schemas are built once; the factory (called per HTTP request / per stdio connection) only registers.
const schemas = {
  sum: z.object({ a: z.number(), b: z.number() }),
  echo: fromJsonSchema(jsonSchemas.echo),
  filler: z.object({ query: z.string(), limit: z.number().int().min(1).max(100).optional() }),
};
const plan = toolPlan(toolCount);

function buildServer() {
  const server = new McpServer({ name: 'bench-sdk2', version: '1.0.0' }, { capabilities: { tools: {} } });
  for (const t of plan) server.registerTool(t.name, { description: t.description, inputSchema: schemas[t.kind] }, handlers[t.kind]);
  return server;
}

if (transport === 'stdio') {
  serveStdio(() => buildServer(), { onerror: (e) => console.error('[mcp]', e?.message ?? e) });
  exitWhenHarnessGoes({ stdioOwnsInput: true });
} else {
  const handler = createMcpHandler(() => buildServer(), { onerror: (e) => console.error('[mcp]', e?.message ?? e) });

  // The bridge from the SDK notes, with one fix: it aborted on the *socket's* 'close', which on a
  // keep-alive connection adds a listener per request (MaxListenersExceededWarning, a leak that
  // slows the server down). Abort when this response closes before it finished instead.
  const toWebRequest = (req, res, port) => {
    const ac = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) ac.abort();
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (Array.isArray(v)) for (const x of v) headers.append(k, x);
      else if (v !== undefined) headers.set(k, v);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    return new Request(`http://${req.headers.host ?? `127.0.0.1:${port}`}${req.url ?? '/'}`, {
      method: req.method,
      headers,
      body: hasBody ? Readable.toWeb(req) : undefined,
      duplex: 'half',
      signal: ac.signal,
    });
  };
  const writeWebResponse = async (res, response) => {
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    res.flushHeaders();
    for await (const chunk of response.body) res.write(chunk);
    res.end();
  };

  const httpServer = http.createServer(async (req, res) => {
    if (!req.url?.startsWith('/mcp')) return void res.writeHead(404).end();
    try {
      const request = toWebRequest(req, res, port);
      const rejected = hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, localhostAllowedOrigins());
      await writeWebResponse(res, rejected ?? (await handler.fetch(request)));
    } catch (e) {
      console.error(e);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  let port = 0;
  httpServer.listen(0, '127.0.0.1', () => reportPort((port = httpServer.address().port)));
  exitWhenHarnessGoes({ stdioOwnsInput: false });
}
