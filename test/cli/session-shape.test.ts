import { afterEach, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../helpers/cli.js';
import { json, startScriptedHttp } from '../helpers/scripted-http.js';

type Scripted = Awaited<ReturnType<typeof startScriptedHttp>>;
let server: Scripted | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const run = runCliCaptured;

const CAPS = 'io.modelcontextprotocol/clientCapabilities';

/** A modern server with one tool that needs elicitation to be listed (as issue #17 found). */
function modernServer() {
  return startScriptedHttp((req, res, { message }) => {
    if (req.method !== 'POST' || !message) return void res.writeHead(405).end();
    const caps = message.params?._meta?.[CAPS] ?? {};
    const result = (r: Record<string, unknown>) => json(res, { jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', ...r } });
    if (message.method === 'server/discover')
      return result({
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        ttlMs: 0,
        cacheScope: 'public',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } },
      });
    if (message.method === 'tools/list') {
      const tools = [{ name: 'plain', inputSchema: { type: 'object' } }, ...(caps.elicitation ? [{ name: 'asks_user', inputSchema: { type: 'object' } }] : [])];
      return result({ tools, ttlMs: 0, cacheScope: 'private' });
    }
    if (message.method === 'tools/call') return result({ content: [{ type: 'text', text: 'ok' }] });
    res.writeHead(202).end();
  });
}

describe('one session shape for every command', () => {
  it('list and call declare the same client capabilities, so they see the same tools', async () => {
    server = await modernServer();
    const listed = await run('list', server.url, '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).tools.map((t: { name: string }) => t.name)).toEqual(['plain', 'asks_user']);
    expect((await run('call', server.url, 'asks_user')).code).toBe(0);
    const declared = server.exchanges.filter((x) => x.message?.params?._meta).map((x) => JSON.stringify(x.message!.params._meta[CAPS]));
    expect(new Set(declared)).toEqual(new Set([JSON.stringify({ elicitation: {} })]));
  });
});

describe('connecting', () => {
  it('--era modern against a legacy-only server says to try --era auto or --era legacy', async () => {
    server = await startScriptedHttp((_req, res) => {
      // What legacy servers say to anything before initialize.
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } }));
    });
    const { code, stderr } = await run('list', server.url, '--era', 'modern');
    expect(code).toBe(2);
    expect(stderr).toContain('try --era auto (it detects the era) or --era legacy');
  });

  it('gives up on a server that never answers after --connect-timeout, saying what it waited for', async () => {
    const { code, stderr } = await run(
      'list',
      '--connect-timeout',
      '300',
      '--',
      process.execPath,
      '-e',
      'process.stdin.on("end", () => process.exit()); setInterval(() => {}, 1000)',
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /did not answer within 300 ms while connecting: no answer to server\/discover; is the command an MCP server .*\(--connect-timeout gives it longer\)/,
    );
  });
});
