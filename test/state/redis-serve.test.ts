import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_SERVER, TestRedis } from '../helpers/redis.js';
import { startHttpServe, startServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp.js';
import { modernMeta, MODERN } from '../helpers/wire.js';

type Msg = Record<string, any>;

let redis: TestRedis;
beforeAll(async () => {
  if (REDIS_SERVER) redis = await TestRedis.create();
});
afterAll(async () => {
  await redis?.destroy();
});

let ids = 0;
async function rpc(url: string, method: string, params: Msg, name: string, meta: Msg = {}): Promise<Msg> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++ids, method, params: { ...params, _meta: modernMeta(meta) } }),
  });
  return (await res.json()) as Msg;
}
const sum = (url: string) => rpc(url, 'tools/call', { name: 'calculate_sum', arguments: { a: 1, b: 2 } }, 'calculate_sum');

describe.skipIf(!REDIS_SERVER)('two `toolwright serve --http` processes sharing one Redis (server.state)', () => {
  it('share a per-tool limit and stored results, refuse while Redis is down, and recover on their own', async () => {
    const cwd = tempDir('tw-redis-serve-');
    writeFileSync(
      join(cwd, 'big-tools.mjs'),
      `export default [
  { name: 'big', description: 'big', inputSchema: { type: 'object' }, handler: () => 'y'.repeat(5000) },
  { name: 'greet', description: 'greet', inputSchema: { type: 'object' }, handler: async (_a, ctx) => {
    const answer = await ctx.elicit('Name?', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, { key: 'who' });
    return 'Hello, ' + answer.content.name;
  } },
];
`,
    );
    const config = {
      tools: ['./big-tools.mjs'],
      toolsets: { math: {} },
      server: {
        audit: false,
        tasks: false,
        limits: { maxResultBytes: 1000, rateLimit: { perPrincipal: false, tools: { calculate_sum: { points: 10, durationSeconds: 60 } } } },
        state: { redis: '${TEST_REDIS_URL}', keyPrefix: `serve-${process.pid}` },
        requestStateSecret: '${TEST_REQUEST_STATE_SECRET}',
      },
    };
    writeFileSync(join(cwd, 'toolwright.config.json'), JSON.stringify(config));
    const env = { TOOLWRIGHT_AUDIT_DIR: '', TEST_REDIS_URL: redis.url, TEST_REQUEST_STATE_SECRET: `secret-${process.pid}-${Date.now()}` };
    const [a, b] = await Promise.all([
      startHttpServe(['--config', 'toolwright.config.json'], { cwd, env }),
      startHttpServe(['--config', 'toolwright.config.json'], { cwd, env }),
    ]);
    expect(a.stderr()).toContain(`shared state in redis://127.0.0.1:${redis.port} (keys serve-${process.pid}:*)`);

    const answers: Msg[] = [];
    for (let i = 0; i < 16; i++) answers.push(await sum(i % 2 ? b.url : a.url));
    const served = answers.filter((m) => m.result && !m.result.isError).length;
    const limited = answers.filter(
      (m) => m.result?.isError && /Rate limit exceeded for tool calculate_sum \(10 calls per 60 s\)/.test(m.result.content[0].text),
    ).length;
    expect({ served, limited }).toEqual({ served: 10, limited: 6 });

    const made = await rpc(a.url, 'tools/call', { name: 'big', arguments: {} }, 'big');
    const link = made.result.content.find((c: Msg) => c.type === 'resource_link');
    const readThroughB = await rpc(b.url, 'resources/read', { uri: link.uri }, link.uri);
    expect(readThroughB.result.contents[0].text).toBe('y'.repeat(5000));

    // An input-required round answered by one instance is completed by the other (one signing secret).
    const elicit = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const asked = await rpc(a.url, 'tools/call', { name: 'greet', arguments: {} }, 'greet', elicit);
    expect(asked.result.resultType).toBe('input_required');
    const retried = await rpc(
      b.url,
      'tools/call',
      { name: 'greet', arguments: {}, requestState: asked.result.requestState, inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } } },
      'greet',
      elicit,
    );
    expect(retried.result.content[0].text).toBe('Hello, Ada');

    await redis.stop();
    for (const url of [a.url, b.url]) {
      const refused = await sum(url);
      expect(refused.error).toMatchObject({ code: -32603, message: expect.stringMatching(/shared state is unavailable; calculate_sum was not run/) });
    }
    await redis.start(); // empty: the counts start afresh
    for (const url of [a.url, b.url]) {
      await expect.poll(async () => (await sum(url)).result?.content?.[0]?.text, { timeout: 15_000, interval: 100 }).toBe('3');
    }
    // Both processes served on without a restart.
    expect(a.child.exitCode).toBeNull();
    expect(b.child.exitCode).toBeNull();
  }, 60_000);
});

describe('toolwright serve with server.state and no requestStateSecret', () => {
  it('refuses to start, naming server.requestStateSecret and the environment way to give it', async () => {
    const cwd = tempDir('tw-redis-serve-');
    // Port 1: nothing is asked of Redis; the config is refused before.
    writeFileSync(
      join(cwd, 'toolwright.config.json'),
      JSON.stringify({ toolsets: { math: {} }, server: { audit: false, tasks: false, state: { redis: 'redis://127.0.0.1:1' } } }),
    );
    const serve = startServe(['--http', '--port', '0', '--config', 'toolwright.config.json'], { cwd, env: { TOOLWRIGHT_AUDIT_DIR: '' } });
    const exit = await serve.exit;
    expect(exit.code).not.toBe(0);
    expect(serve.stderr()).toContain('server.requestStateSecret');
    expect(serve.stderr()).toContain('${TOOLWRIGHT_REQUEST_STATE_SECRET}');
    expect(serve.stderr()).not.toMatch(/\n\s+at /); // no stack trace
  }, 30_000);
});
