import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// toolwright/http, resolved by package name through package.json "exports" (a package may
// import itself by name), from the built dist/ as an installed dependency would be.
const root = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);

describe('the toolwright/http entry point', () => {
  it('gives createHttpHandler synchronously: { handle, fetch, close } at once, serving MCP on node:http', async () => {
    const script = `
      import { createServer } from 'node:http';
      import { ToolServer } from 'toolwright';
      import * as async from 'toolwright';
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
      // The package root's createHttpHandler stays asynchronous (compatibility), building the same handler.
      const later = async.createHttpHandler(server, { path: '/other' });
      const mounted = await later;
      await mcp.close(); await mounted.close(); http.close(); server.close();
      console.log(JSON.stringify({ kinds, status: res.status, resultType: body.result?.resultType, rootIsPromise: later instanceof Promise, path: mounted.path }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
    expect(JSON.parse(stdout)).toEqual({
      kinds: ['function', 'function', 'function', 'undefined'],
      status: 200,
      resultType: 'complete',
      rootIsPromise: true,
      path: '/other',
    });
  });
});
