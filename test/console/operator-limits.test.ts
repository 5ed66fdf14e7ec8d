import { describe, expect, it } from 'vitest';
import { operatorSources } from '../../src/console/operator/sources.js';
import { operatorRoutes } from '../../src/console/server/operator-routes.js';
import type { ApiContext } from '../../src/console/server/api-routes.js';
import { ApiError } from '../../src/console/server/http-io.js';
import type { RateLimitOptions } from '../../src/policy/rate-limit.js';
import { redisConnection } from '../../src/state/redis/connection.js';
import { ToolServer } from '../../src/server/server.js';
import type { Tool } from '../../src/server/tool.js';
import { MessageStreamSession } from '../../src/transports/message-stream.js';
import { REDIS_SERVER, TestRedis } from '../helpers/redis.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';

/**
 * Issue 25: the Limits panel reads the server's rate limiter as it stands (no point taken):
 * every live in-process window, or per caller/tool lookups in a shared store (Redis).
 */
const echo: Tool = { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object' }, handler: () => 'ok' };
const slow: Tool = { name: 'slow', description: 'Slow.', inputSchema: { type: 'object' }, handler: () => 'ok' };

const RULES: RateLimitOptions = {
  perPrincipal: { points: 50, durationSeconds: 60 },
  perTool: { points: 500, durationSeconds: 60 },
  tools: { slow: { points: 3, durationSeconds: 60 } },
};

/** `count` calls of `tool` by `caller` (a transport principal; undefined: anonymous) through the server's real pipeline. */
async function calls(server: ToolServer, caller: string | undefined, tool: string, count: number): Promise<Array<Record<string, unknown>>> {
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  const session = new MessageStreamSession(
    server,
    (json) => {
      const msg = JSON.parse(json) as { id?: number } & Record<string, unknown>;
      if (msg.id !== undefined) waiting.get(msg.id)?.(msg);
    },
    'memory',
    caller,
  );
  const answers: Array<Record<string, unknown>> = [];
  for (let id = 1; id <= count; id++) {
    const answer = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
    session.receive(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: tool, arguments: {}, _meta: modernMeta() },
      }),
    );
    answers.push(await answer);
    if (id === 1) expect(JSON.stringify(answers[0])).toContain('"result"');
  }
  return answers;
}

function context(server: ToolServer | undefined, query: Record<string, string> = {}): ApiContext {
  return { query: new URLSearchParams(query), ...(server ? { operator: operatorSources(server) } : {}) } as unknown as ApiContext;
}

describe('rate-limit use for the operator', () => {
  it('lists the in-process windows after real calls: per caller (keyed as callerKey), per tool, a tool of its own rule, most used first', async () => {
    const server = new ToolServer({ logger: memoryLogger().logger, tools: [echo, slow], audit: false, limits: { rateLimit: RULES } });
    await calls(server, 'alice', 'echo', 4);
    await calls(server, 'bob', 'echo', 1);
    const slowAnswers = await calls(server, undefined, 'slow', 4);
    // The fourth slow call met its tool's rule of 3: the view counts what the limiter counted.
    expect(JSON.stringify(slowAnswers[3])).toMatch(/rate limit/i);
    const usage = server.rateLimiter!.usage();
    expect(usage.store).toBe('in-process');
    expect(usage.rules.map((r) => r.rule)).toEqual(['perPrincipal', 'perTool', 'tools.slow']);
    const rows = usage.entries.map(({ rule, key, used, points }) => ({ rule, key, used, points }));
    expect(rows).toEqual([
      { rule: 'tools.slow', key: 'slow', used: 3, points: 3 },
      { rule: 'perPrincipal', key: '', used: 4, points: 50 },
      { rule: 'perPrincipal', key: 'alice', used: 4, points: 50 },
      { rule: 'perPrincipal', key: 'bob', used: 1, points: 50 },
      { rule: 'perTool', key: 'echo', used: 5, points: 500 },
    ]);
    for (const entry of usage.entries) expect(entry.resetsInMs).toBeGreaterThan(0);
    expect(usage.entries.every((e) => e.resetsInMs <= 60_000)).toBe(true);
    // Reading took no point.
    expect(server.rateLimiter!.usage().entries).toEqual(usage.entries.map((e) => ({ ...e, resetsInMs: expect.any(Number) })));
    // Capped, saying so.
    const capped = server.rateLimiter!.usage(2);
    expect(capped.entries).toHaveLength(2);
    expect(capped.truncated).toBe(true);
    expect(server.rateLimiter!.usage(0)).toMatchObject({ store: 'in-process', entries: [], rules: usage.rules });
    // Per key, as a shared store answers.
    expect((await server.rateLimiter!.usageFor('alice', 'echo')).map(({ rule, key, used }) => ({ rule, key, used }))).toEqual([
      { rule: 'perPrincipal', key: 'alice', used: 4 },
      { rule: 'perTool', key: 'echo', used: 5 },
    ]);
    // Through the console route.
    const answer = (await operatorRoutes['GET limits'](context(server, { tool: 'slow' }))) as { entries: unknown[]; lookup: Array<{ key: string }> };
    expect(answer.entries).toHaveLength(5);
    expect(answer.lookup.map((u) => u.key)).toEqual(['slow']);
    server.close();
  });

  it('says what the console has: nothing standalone, and 404 on a route whose source is missing', async () => {
    expect(await operatorRoutes['GET operator'](context(undefined))).toEqual({ available: false, audit: false, tasks: false, limits: false });
    await expect(operatorRoutes['GET limits'](context(undefined))).rejects.toMatchObject({ status: 404 });
    const server = new ToolServer({ logger: memoryLogger().logger, tools: [echo], audit: false, limits: { rateLimit: false } });
    expect(await operatorRoutes['GET operator'](context(server))).toMatchObject({ available: true, audit: false, limits: false });
    const refusal = await operatorRoutes['GET limits'](context(server)).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).message).toMatch(/rate limits are off/);
    await expect(operatorRoutes['GET audit/records'](context(server))).rejects.toMatchObject({ status: 404 });
    server.close();
  });
});

if (!REDIS_SERVER) console.warn('\n*** SKIPPED: the Redis rate-limit usage test needs redis-server (apt-get install redis-server) ***\n');

describe.skipIf(!REDIS_SERVER)('rate-limit use in Redis', () => {
  it('lists no window (Redis is not scanned) but answers per caller and tool from the keys the calls counted', async () => {
    const redis = await TestRedis.create();
    const keyPrefix = `usage-${process.pid}:`;
    const server = new ToolServer({
      logger: memoryLogger().logger,
      tools: [echo, slow],
      audit: false,
      limits: { rateLimit: RULES },
      state: { redis: redis.url, keyPrefix },
      requestStateSecret: 'operator-limits-test',
    });
    try {
      expect(await redisConnection(redis.url, { keyPrefix }).run((c) => c.ping())).toBe('PONG');
      await calls(server, 'alice', 'echo', 3);
      await calls(server, undefined, 'slow', 2);
      const usage = server.rateLimiter!.usage();
      expect(usage).toMatchObject({ store: 'shared', entries: [], truncated: false });
      const alice = await server.rateLimiter!.usageFor('alice', 'echo');
      expect(alice.map(({ rule, key, used, points }) => ({ rule, key, used, points }))).toEqual([
        { rule: 'perPrincipal', key: 'alice', used: 3, points: 50 },
        { rule: 'perTool', key: 'echo', used: 3, points: 500 },
      ]);
      for (const use of alice) expect(use.resetsInMs).toBeGreaterThan(0);
      const anonymous = await server.rateLimiter!.usageFor(undefined, 'slow');
      expect(anonymous.map(({ rule, key, used }) => ({ rule, key, used }))).toEqual([
        { rule: 'perPrincipal', key: '', used: 2 },
        { rule: 'tools.slow', key: 'slow', used: 2 },
      ]);
      expect(await server.rateLimiter!.usageFor('nobody')).toEqual([]);
    } finally {
      server.close();
      await redis.destroy();
    }
  });
});
