/**
 * What the CLI says when connecting fails (issue 21): the error code once, a hint for a URL
 * without /mcp, and the way to send a key to a server that wants one. Real servers on
 * 127.0.0.1; the CLI in-process (these flows do not wait).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportError } from '../../src/cli/errors.js';
import { McpRpcError } from '../../src/client/errors.js';
import { generateApiKey } from '../../src/policy/auth/api-keys.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { runCliCaptured as run } from '../helpers/cli.js';
import { memoryLogger } from '../helpers/wire.js';

function reported(err: unknown): string {
  let text = '';
  reportError(err, { stdout: () => {}, stderr: (t) => void (text += t) });
  return text;
}

describe('a JSON-RPC error', () => {
  it('says its code once, also when the server put it in its message', () => {
    expect(reported(new McpRpcError(-32602, 'MCP error -32602: Invalid arguments for tool add'))).toBe(
      'toolwright: the server answered with error -32602: Invalid arguments for tool add\n',
    );
    expect(reported(new McpRpcError(-32601, 'Error -32601: no such method'))).toBe('toolwright: the server answered with error -32601: no such method\n');
    expect(reported(new McpRpcError(-32000, '[-32000] busy'))).toBe('toolwright: the server answered with error -32000: busy\n');
  });

  it('keeps a message that names another code, or is nothing but the code', () => {
    expect(reported(new McpRpcError(-32602, 'MCP error -32603: upstream failed'))).toContain('error -32602: MCP error -32603: upstream failed');
    expect(reported(new McpRpcError(-32602, 'MCP error -326021: odd'))).toContain('error -32602: MCP error -326021: odd');
    expect(reported(new McpRpcError(-32602, 'MCP error -32602: '))).toContain('error -32602: MCP error -32602:');
  });
});

let config: string;
const savedConfig = process.env.XDG_CONFIG_HOME;
beforeAll(async () => {
  // No tokens stored by a login of the user running the tests.
  config = await mkdtemp(join(tmpdir(), 'toolwright-connect-errors-'));
  process.env.XDG_CONFIG_HOME = config;
});
afterAll(async () => {
  if (savedConfig === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedConfig;
  await rm(config, { recursive: true, force: true });
});

const tools = [{ name: 'ping_me', description: 'Pings.', inputSchema: { type: 'object' as const }, handler: () => 'pong' }];
const toolServer = () => new ToolServer({ name: 'errors', logger: memoryLogger().logger, audit: false, tools });

describe('an HTTP URL without /mcp', () => {
  let http: HttpServerHandle;
  let plain: Server;
  let plainOrigin: string;
  beforeAll(async () => {
    http = await serveHttp(toolServer(), { port: 0 });
    plain = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    plainOrigin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await http.close();
    await new Promise((resolve) => plain.close(resolve));
  });

  it('a 404 at another path suggests /mcp, without trying it on its own', async () => {
    const origin = new URL(http.url).origin;
    for (const path of ['', '/', '/api', '/mcp/']) {
      const { code, stderr } = await run('list', `${origin}${path}`);
      expect(code).toBe(2);
      expect(stderr).toContain('HTTP 404');
      expect(stderr).toContain(`(MCP servers are usually served at /mcp: try ${origin}/mcp)`);
    }
  });

  it('a failed connect points to toolwright doctor, on a line of its own; a URL with a query is not repeated', async () => {
    const origin = new URL(http.url).origin;
    const { stderr } = await run('list', `${origin}/api`);
    expect(stderr.split('\n')).toContain(`toolwright: to see which step fails: toolwright doctor ${origin}/api`);
    const withQuery = await run('list', `${origin}/api?key=sekrit`);
    expect(withQuery.stderr).toContain('toolwright: to see which step fails: toolwright doctor <url>\n');
    expect(withQuery.stderr).not.toContain('doctor http');
  });

  it('a 404 at /mcp itself gets no such hint', async () => {
    const { code, stderr } = await run('list', `${plainOrigin}/mcp`);
    expect(code).toBe(2);
    expect(stderr).toContain('HTTP 404');
    expect(stderr).not.toContain('usually served at /mcp');
  });
});

describe('a server that wants an API key', () => {
  let http: HttpServerHandle;
  let key: string;
  beforeAll(async () => {
    const generated = generateApiKey();
    key = generated.key;
    http = await serveHttp(toolServer(), { port: 0, auth: { apiKeys: [{ hash: generated.hash, principal: 'ci-bot' }] } });
  });
  afterAll(() => http.close());

  it('without a key: says to send one with --header (there is no OAuth to log in with)', async () => {
    const { code, stderr } = await run('list', http.url);
    expect(code).toBe(2);
    expect(stderr).toBe(
      "toolwright: the server requires authorization: pass an API key with --header 'Authorization: Bearer <key>' (it publishes no OAuth metadata, so toolwright login cannot sign in to it)\n",
    );
  });

  it('with a wrong key: one friendly line from the error body, no raw JSON', async () => {
    const { code, stderr } = await run('list', http.url, '--header', 'Authorization: Bearer twk_wrong');
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/[{}"]/);
    expect(stderr).toBe(
      'toolwright: the server refused the credentials sent with --header Authorization (HTTP 401): Unauthorized: the token is not a valid API key\n',
    );
  });

  it('with the right key: lists', async () => {
    const { code, stdout } = await run('list', http.url, '--header', `Authorization: Bearer ${key}`);
    expect([code, stdout]).toEqual([0, expect.stringContaining('ping_me')]);
  });
});
