import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// toolwright/http, resolved by package name through package.json "exports" (a package may
// import itself by name), from the built dist/ as an installed dependency would be.
const root = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);

describe('the toolwright/http entry point', () => {
  it('gives createHttpHandler synchronously from both entry points: { handle, fetch, close } at once, serving MCP on node:http', async () => {
    const script = `
      import { createServer } from 'node:http';
      import { ToolServer } from 'toolwright';
      import * as root from 'toolwright';
      import { createHttpHandler } from 'toolwright/http';
      const server = new ToolServer({ name: 'entry', version: '1', audit: false });
      const mcp = createHttpHandler(server);
      const kinds = [typeof mcp.handle, typeof mcp.fetch, typeof mcp.close, typeof mcp.then];
      const http = createServer(mcp.handle);
      await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
      const res = await fetch('http://127.0.0.1:' + http.address().port + '/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }),
      });
      const body = await res.json();
      // The package root's createHttpHandler is the same: plain JavaScript gets the handler, not a Promise.
      const mounted = root.createHttpHandler(server, { path: '/other' });
      const rootKinds = [typeof mounted.handle, typeof mounted.fetch, typeof mounted.close, typeof mounted.then];
      // Used at once, before anything was awaited: a Fetch-API request is answered.
      const answered = await mounted.fetch(new Request('http://127.0.0.1/other', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: meta } }),
      }));
      // A bad option throws at once from both.
      const thrown = [];
      for (const create of [createHttpHandler, root.createHttpHandler]) {
        try { create(server, { path: 'mcp' }); thrown.push('nothing'); } catch (err) { thrown.push(err.constructor.name); }
      }
      await mcp.close(); await mounted.close(); http.close(); server.close();
      console.log(JSON.stringify({ kinds, rootKinds, status: res.status, resultType: body.result?.resultType, rootStatus: answered.status, path: mounted.path, thrown }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
    expect(JSON.parse(stdout)).toEqual({
      kinds: ['function', 'function', 'function', 'undefined'],
      rootKinds: ['function', 'function', 'function', 'undefined'],
      status: 200,
      resultType: 'complete',
      rootStatus: 200,
      path: '/other',
      thrown: ['TypeError', 'TypeError'],
    });
  });
});
