// An MCP App (SEP-1865): `show_counter` returns a count, and hosts that support
// apps show it in counter.html, which can call `bump_counter` back through the host.
//   npx tsx examples/apps/server.ts        (Streamable HTTP on 127.0.0.1:3000)
import { readFile } from 'node:fs/promises';
import { defineAppResource, defineAppTool, serveHttp, ToolServer } from 'toolwright';

const counterView = defineAppResource({
  uri: 'ui://counter/view',
  name: 'counter-view',
  title: 'Counter',
  html: () => readFile(new URL('./counter.html', import.meta.url), 'utf8'),
  prefersBorder: true,
});

const counterResult = (count: number) => ({ content: [{ type: 'text' as const, text: `The counter is at ${count}.` }], structuredContent: { count } });

const server = new ToolServer({
  name: 'counter',
  audit: false,
  resources: [counterView],
  tools: [
    defineAppTool({
      name: 'show_counter',
      description: 'Shows a counter the user can click',
      inputSchema: { type: 'object', properties: { start: { type: 'integer', minimum: 0 } } },
      outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      app: counterView,
      handler: ({ start }) => counterResult(start ?? 0),
    }),
    defineAppTool({
      name: 'bump_counter',
      description: 'Adds one to the counter (for the app only)',
      inputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      app: counterView,
      visibility: ['app'],
      handler: ({ count }) => counterResult(count + 1),
    }),
  ],
});

const http = await serveHttp(server, { port: 3000 });
console.log(`counter app server on ${http.url}`);
