import type { IncomingMessage } from 'node:http';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/policy/auth/caller.js';
import { ToolServer, type ToolServerOptions } from '../../src/server/server.js';
import { redisConnection } from '../../src/state/redis/connection.js';
import { RedisResultStore } from '../../src/state/redis/result-store.js';
import { startHttp } from '../helpers/http.js';
import { REDIS_SERVER, TestRedis } from '../helpers/redis.js';
import { until } from '../helpers/until.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';

type Msg = Record<string, any>;

let redis: TestRedis;
const servers: ToolServer[] = [];
let prefixes = 0;

beforeAll(async () => {
  if (REDIS_SERVER) redis = await TestRedis.create();
});
afterAll(async () => {
  await redis?.destroy();
});
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await redis.start(); // a test that stopped it leaves it running for the next
});

const big = 'x'.repeat(5_000);
const tools: ToolServerOptions['tools'] = [
  { name: 'echo', description: 'echo', inputSchema: { type: 'object' }, handler: () => 'ok' },
  { name: 'other', description: 'other', inputSchema: { type: 'object' }, handler: () => 'ok' },
  { name: 'big', description: 'big', inputSchema: { type: 'object' }, handler: () => big },
];

/** Two instances of one deployment (same Redis, same key prefix), as behind a load balancer. */
async function instances(
  options: Partial<ToolServerOptions> = {},
  state: Partial<NonNullable<ToolServerOptions['state']>> = {},
): Promise<[ToolServer, ToolServer]> {
  const keyPrefix = `t${++prefixes}-${process.pid}`;
  const make = () => {
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tasks: false,
      tools,
      limits: { maxResultBytes: 1_000, ...options.limits },
      state: { redis: redis.url, keyPrefix, ...state },
      requestStateSecret: `pair-${keyPrefix}`,
    });
    servers.push(server);
    return server;
  };
  const pair: [ToolServer, ToolServer] = [make(), make()];
  expect(await pair[0].stateReady()).toBe(true);
  expect(await pair[1].stateReady()).toBe(true);
  return pair;
}

let ids = 0;
/** One modern request from `caller` (a principal id or a Caller; undefined: anonymous). */
async function request(server: ToolServer, method: string, params: Msg, caller?: string | Caller): Promise<Msg> {
  const connection = server.connect({ transport: 'test', caller });
  const reply = await connection.receive({ jsonrpc: '2.0', id: ++ids, method, params: { ...params, _meta: modernMeta() } });
  connection.close();
  return JSON.parse(String((reply as { json?: string }).json ?? JSON.stringify(reply))) as Msg;
}
const call = (server: ToolServer, name: string, caller?: string | Caller) => request(server, 'tools/call', { name, arguments: {} }, caller);
const read = (server: ToolServer, uri: string, caller?: string | Caller) => request(server, 'resources/read', { uri }, caller);

/** Calls alternating between the two instances; how many were served and how many limited. */
async function spread(pair: [ToolServer, ToolServer], count: number, name: string, caller = (_i: number) => 'alice' as string | undefined) {
  let served = 0;
  let limited = 0;
  for (let i = 0; i < count; i++) {
    const res = await call(pair[i % 2]!, name, caller(i));
    if (res.result?.isError === true && /Rate limit exceeded/.test(res.result.content[0].text)) limited++;
    else if (res.result && !res.result.isError) served++;
    else throw new Error(`unexpected answer ${JSON.stringify(res)}`);
  }
  return { served, limited };
}

describe.skipIf(!REDIS_SERVER)('shared state in Redis (state.redis)', () => {
  it('counts a per-caller limit across instances: N calls, not N per instance', async () => {
    const pair = await instances({ limits: { rateLimit: { perPrincipal: { points: 10, durationSeconds: 60 }, perTool: false } } });
    expect(await spread(pair, 16, 'echo')).toEqual({ served: 10, limited: 6 });
    // Another caller has a budget of its own.
    expect((await call(pair[1], 'echo', 'bob')).result.isError).toBeUndefined();
  });

  it('counts a per-tool limit across instances and callers', async () => {
    const pair = await instances({ limits: { rateLimit: { perPrincipal: false, perTool: { points: 10, durationSeconds: 60 } } } });
    expect(await spread(pair, 16, 'echo', (i) => `caller-${i}`)).toEqual({ served: 10, limited: 6 });
    expect((await call(pair[0], 'other', 'someone')).result.isError).toBeUndefined();
  });

  it('reads a stored result made on one instance through the other, for its caller only', async () => {
    const [a, b] = await instances();
    const alice: Caller = { id: 'alice', tenant: 'acme', claims: {}, method: 'transport' };
    const res = await call(a, 'big', alice);
    const link = res.result.content.find((c: Msg) => c.type === 'resource_link');
    expect(link.uri).toMatch(/^toolwright:\/\/results\//);
    const mine = await read(b, link.uri, alice);
    expect(mine.result.contents[0].text).toBe(big);
    // Another caller, the same id in another tenant, and the anonymous caller: "not found", as for a URI nothing holds.
    for (const other of ['bob', { id: 'alice', tenant: 'other', claims: {}, method: 'transport' }, undefined] as Array<string | Caller | undefined>) {
      const refused = await read(b, link.uri, other);
      expect(refused.error).toMatchObject({ code: -32602, message: 'Resource not found (it may have expired)' });
    }
    const forged = await read(b, link.uri.replace(/[0-9a-f]{8}-/, '00000000-'), alice);
    expect(forged.error?.code).toBe(-32602);
  });

  it("keeps a stored result only for the store's TTL (the key's own expiry), and bounds one result's size", async () => {
    const [a, b] = await instances({ limits: { maxResultBytes: 1_000, resultStore: { ttlMs: 300 } } });
    const uri = (await call(a, 'big', 'alice')).result.content.find((c: Msg) => c.type === 'resource_link').uri;
    expect((await read(b, uri, 'alice')).result.contents[0].text).toBe(big);
    await until(async () => (await read(b, uri, 'alice')).error?.code === -32602, 'the stored result to expire', 10_000);
    const connection = redisConnection(redis.url, { keyPrefix: `bound-${process.pid}` });
    try {
      const store = new RedisResultStore(connection, { maxEntryBytes: 100 });
      await expect(store.put({ mimeType: 'text/plain', text: 'z'.repeat(101) }, 'alice', 'x.txt')).rejects.toThrow(/101 bytes, over the 100-byte bound/);
      const kept = await store.put({ mimeType: 'text/plain', text: 'z'.repeat(100) }, 'alice', 'x.txt');
      expect((await store.get(kept.uri, 'alice'))?.text).toBe('z'.repeat(100));
    } finally {
      await connection.release();
    }
  });

  it('refuses with -32603 while Redis is down, and serves again once it is back, without a restart', async () => {
    const pair = await instances({ limits: { rateLimit: { perPrincipal: { points: 100, durationSeconds: 60 }, perTool: false } } });
    expect((await call(pair[0], 'echo')).result.isError).toBeUndefined();
    const made = await call(pair[0], 'big', 'alice');
    await redis.stop();
    for (const server of pair) {
      const res = await call(server, 'echo', 'alice');
      expect(res.error).toMatchObject({ code: -32603 });
      expect(res.error.message).toMatch(/shared state is unavailable; echo was not run/);
      expect(JSON.stringify(res)).not.toContain(String(redis.port));
      const stored = await read(server, made.result.content.find((c: Msg) => c.type === 'resource_link').uri, 'alice');
      expect(stored.error).toMatchObject({ code: -32603 });
    }
    await redis.start();
    // Each instance reconnects on its own.
    await until(async () => (await call(pair[0], 'echo', 'alice')).result?.isError === undefined, 'instance 0 to serve again', 15_000);
    await until(async () => (await call(pair[1], 'echo', 'alice')).result?.isError === undefined, 'instance 1 to serve again', 15_000);
  });

  it('answers each call exactly once when Redis is killed while calls are in flight', async () => {
    const [a] = await instances({
      limits: { rateLimit: { perPrincipal: { points: 1_000, durationSeconds: 60 }, perTool: { points: 1_000, durationSeconds: 60 } } },
    });
    const extra: string[] = [];
    const connection = a.connect({ transport: 'test', caller: 'alice', send: (m) => extra.push(m) });
    const replies = Array.from({ length: 60 }, (_, i) =>
      connection.receive({ jsonrpc: '2.0', id: `c${i}`, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: modernMeta() } }),
    );
    await redis.stop();
    const answers = (await Promise.all(replies)).map((r) => JSON.parse(r!.json) as Msg);
    connection.close();
    expect(answers.map((m) => m.id)).toEqual(Array.from({ length: 60 }, (_, i) => `c${i}`));
    for (const m of answers) expect(m.error?.code === -32603 || m.result?.content?.[0]?.text === 'ok').toBe(true);
    // Nothing arrives later on the connection's own channel: no call is answered a second time.
    await redis.start();
    await until(async () => (await call(a, 'echo', 'alice')).result?.isError === undefined, 'the instance to serve again', 15_000);
    expect(extra).toEqual([]);
  });

  it("serves on while Redis is down under onFailure: 'open', with each instance's own limits and stored results", async () => {
    const pair = await instances({ limits: { rateLimit: { perPrincipal: { points: 3, durationSeconds: 60 }, perTool: false } } }, { onFailure: 'open' });
    await redis.stop();
    // Per instance now: 3 on each.
    expect(await spread(pair, 8, 'echo')).toEqual({ served: 6, limited: 2 });
    // alice has used her budget on both; carol stores a result in instance 0's memory.
    const made = await call(pair[0], 'big', 'carol');
    const uri = made.result.content.find((c: Msg) => c.type === 'resource_link').uri;
    expect((await read(pair[0], uri, 'carol')).result.contents[0].text).toBe(big);
    expect((await read(pair[0], uri, 'bob')).error?.code).toBe(-32602);
  });

  it('throttles failed authentication per address across instances', async () => {
    const [a, b] = await instances();
    const prefix = `t${prefixes}-${process.pid}:`;
    const authenticate = (req: IncomingMessage) => (req.headers.authorization === 'Bearer right' ? 'alice' : undefined);
    const httpA = await startHttp(a, { authenticate, authFailureLimit: { points: 4, durationSeconds: 60 } });
    const httpB = await startHttp(b, { authenticate, authFailureLimit: { points: 4, durationSeconds: 60 } });
    try {
      // A failure is counted just after its 401 is sent: wait for each count to land in Redis
      // before the next guess, so the sequence below is the same on every run.
      const probe = new Redis(redis.url);
      const counted = async () => {
        const keys = await probe.keys(`${prefix}rl:auth-failures:*`);
        return keys.length === 1 ? Number(await probe.get(keys[0]!)) : 0;
      };
      const statuses: number[] = [];
      try {
        for (let i = 0; i < 6; i++) {
          const status = (await (i % 2 ? httpB : httpA).modern('tools/list', {}, { authorization: `Bearer guess-${i}` })).status;
          statuses.push(status);
          if (status === 401) await until(async () => (await counted()) === statuses.filter((s) => s === 401).length, 'the failure to be counted');
        }
      } finally {
        probe.disconnect();
      }
      // The fourth failure (on B) uses up the shared allowance and blocks the address on B at
      // once; A learns it from its own next failure (blocks are kept per instance, so a request
      // that is not blocked costs no round trip): points + (instances - 1) failures at most.
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      for (const http of [httpA, httpB]) expect((await http.modern('tools/list', {}, { authorization: 'Bearer right' })).status).toBe(429);
    } finally {
      await httpA.close();
      await httpB.close();
    }
  });
});
