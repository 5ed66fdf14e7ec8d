// The start-up benchmark's library server (bench/startup.mjs): `node startup-library.mjs <dist>`
// imports the toolwright build in <dist> (this checkout's, or a baseline's), registers
// calculate_sum and echo, and serves stdio with its default audit trail. Only options every
// build since the first benchmark knows are used, so old and new builds load the same way.
import { pathToFileURL } from 'node:url';

const dist = process.argv[2];
if (!dist) throw new Error('usage: node startup-library.mjs <dist folder>');
const { ToolServer, serveStdio } = await import(pathToFileURL(`${dist}/index.js`).href);
const object = (properties) => ({ type: 'object', properties, required: Object.keys(properties) });
const server = new ToolServer({
  name: 'bench-startup',
  version: '1.0.0',
  tools: [
    {
      name: 'calculate_sum',
      description: 'Add two numbers',
      inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }),
      handler: ({ a, b }) => String(a + b),
    },
    { name: 'echo', description: 'Echo the text back', inputSchema: object({ text: { type: 'string' } }), handler: ({ text }) => text },
  ],
});
serveStdio(server);
