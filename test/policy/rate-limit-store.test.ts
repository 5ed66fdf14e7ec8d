import type { IncomingMessage } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/policy/rate-limit.js';
import type { RateLimitPairDecide, RateLimitPairTool, RateLimitRule, RateLimitStore, RateLimitTake } from '../../src/policy/rate-limit-store.js';
import { ToolServer } from '../../src/server/server.js';
import type { CreateLimiter } from '../../src/state/index.js';
import { startHttp } from '../helpers/http.js';
import { memoryLogger, modernMeta } from '../helpers/wire.js';

type Msg = Record<string, any>;

/** A store a user might write: one window per key that never ends (enough for a test), in a Map; it answers synchronously. */
class CountingStore implements RateLimitStore {
  readonly counts = new Map<string, number>();
  takes = 0;
  constructor(
    readonly rule: RateLimitRule,
    readonly name: string,
  ) {}
  take(key: string): RateLimitTake {
    this.takes++;
    return this.count(key);
  }
  count(key: string): RateLimitTake {
    const used = (this.counts.get(key) ?? 0) + 1;
    if (used > this.rule.points) return 7_000;
    this.counts.set(key, used);
    return undefined;
  }
  peek(key: string) {
    const used = this.counts.get(key);
    return used === undefined ? undefined : { used, resetsInMs: 7_000 };
  }
}

/** The same, with `takePair`: both points in one (here: synchronous) step, the tool's only when the caller's was taken. */
class PairingStore extends CountingStore {
  pairs: [key: string, tool: RateLimitPairTool | undefined][] = [];
  /** Set to make takePair decline (the points are then taken one by one). */
  declines = false;
  takePair<T>(key: string, tool: RateLimitPairTool | undefined, decide: RateLimitPairDecide<T>): Promise<T> | undefined {
    if (this.declines) return undefined;
    this.pairs.push([key, tool]);
    const caller = this.count(key);
    if (caller !== undefined || !tool) return Promise.resolve(decide(caller, undefined));
    return Promise.resolve(decide(undefined, (tool.store as PairingStore).count(tool.key)));
  }
}

function storesOf<S extends CountingStore>(Store: new (rule: RateLimitRule, name: string) => S) {
  const made = new Map<string, S>();
  const createLimiter: CreateLimiter = (rule, name) => {
    const store = new Store(rule, name);
    made.set(name, store);
    return store;
  };
  return { made, createLimiter };
}

let ids = 0;
async function call(server: ToolServer, name: string, caller?: string): Promise<Msg> {
  const connection = server.connect({ transport: 'test', caller });
  const reply = await connection.receive({ jsonrpc: '2.0', id: ++ids, method: 'tools/call', params: { name, arguments: {}, _meta: modernMeta() } });
  connection.close();
  return JSON.parse((reply as { json: string }).json) as Msg;
}
const tools = ['echo', 'deploy'].map((name) => ({ name, description: name, inputSchema: { type: 'object' as const }, handler: () => 'ok' }));

describe('a rate-limit store of your own (RateLimitStore)', () => {
  it('plugged in as limits.rateLimit.createLimiter, one store per rule, decides the calls with the ms it answers', async () => {
    const { made, createLimiter } = storesOf(CountingStore);
    const server = new ToolServer({
      logger: memoryLogger().logger,
      audit: false,
      tasks: false,
      tools,
      limits: {
        rateLimit: {
          perPrincipal: { points: 2, durationSeconds: 60 },
          perTool: { points: 3, durationSeconds: 60 },
          tools: { deploy: { points: 1, durationSeconds: 3600 } },
          createLimiter,
        },
      },
    });
    expect([...made.keys()].sort()).toEqual(['principal', 'tool', 'tool:deploy']);
    expect((await call(server, 'echo', 'alice')).result.isError).toBeUndefined();
    expect((await call(server, 'echo', 'alice')).result.isError).toBeUndefined();
    const refused = await call(server, 'echo', 'alice');
    expect(refused.result).toMatchObject({ isError: true });
    expect(refused.result.content[0].text).toMatch(/Rate limit exceeded for this caller \(2 calls per 60 s\)\. Retry after 7 s/);
    // The caller's key is `p:<key>` in the one per-caller store; the anonymous bucket is `anonymous`.
    expect(made.get('principal')!.counts).toEqual(new Map([['p:alice', 2]]));
    expect(made.get('tool')!.counts).toEqual(new Map([['echo', 2]]));
    expect((await call(server, 'echo')).result.isError).toBeUndefined();
    expect(made.get('principal')!.counts.get('anonymous')).toBe(1);
    expect((await call(server, 'deploy', 'bob')).result.isError).toBeUndefined();
    expect((await call(server, 'deploy', 'carol')).result.content[0].text).toMatch(/Rate limit exceeded for tool deploy \(1 calls per 3600 s\)/);
    expect(made.get('tool:deploy')!.counts).toEqual(new Map([['deploy', 1]]));
    server.close();
  });

  it('answering synchronously, is answered synchronously: no promise per call', () => {
    const { createLimiter } = storesOf(CountingStore);
    const limiter = new RateLimiter({ perPrincipal: { points: 1, durationSeconds: 60 }, perTool: { points: 5, durationSeconds: 60 }, createLimiter });
    expect(limiter.consume('t', 'alice')).toEqual({ allowed: true });
    expect(limiter.consume('t', 'alice')).toMatchObject({ allowed: false, scope: 'principal', retryAfterMs: 7_000 });
    expect(limiter.consume('t', undefined)).toEqual({ allowed: true });
  });

  it('reads a window for the operator without taking a point (peek), and lists none when it cannot (no live)', async () => {
    const { made, createLimiter } = storesOf(CountingStore);
    const limiter = new RateLimiter({ perPrincipal: { points: 5, durationSeconds: 60 }, perTool: { points: 5, durationSeconds: 60 }, createLimiter });
    limiter.consume('t', 'alice');
    expect(await limiter.usageFor('alice', 't')).toEqual([
      { rule: 'perPrincipal', scope: 'principal', key: 'alice', used: 1, resetsInMs: 7_000, points: 5, durationSeconds: 60 },
      { rule: 'perTool', scope: 'tool', key: 't', used: 1, resetsInMs: 7_000, points: 5, durationSeconds: 60 },
    ]);
    expect(made.get('principal')!.takes + made.get('tool')!.takes).toBe(2);
    expect(limiter.usage()).toMatchObject({ store: 'shared', entries: [] });
  });

  it('with takePair, takes a call’s two points in one step, the tool’s only while the caller is within its limit', async () => {
    const { made, createLimiter } = storesOf(PairingStore);
    const limiter = new RateLimiter({ perPrincipal: { points: 2, durationSeconds: 60 }, perTool: { points: 3, durationSeconds: 60 }, createLimiter });
    const decisions = [];
    for (const who of ['alice', 'alice', 'alice', 'bob', undefined]) decisions.push(await limiter.consume('t', who));
    expect(decisions.map((d) => (d.allowed ? 'ok' : d.scope))).toEqual(['ok', 'ok', 'principal', 'ok', 'tool']);
    const callers = made.get('principal')!;
    const tool = made.get('tool')!;
    // Every decision came from takePair on the callers' store, handed the tool rule's own store and key.
    expect(callers.pairs.map(([key]) => key)).toEqual(['p:alice', 'p:alice', 'p:alice', 'p:bob', 'anonymous']);
    for (const [, pairTool] of callers.pairs) expect(pairTool).toEqual({ store: tool, key: 't' });
    expect(callers.takes + tool.takes).toBe(0);
    // alice's refused call did not spend the tool's budget.
    expect(tool.counts.get('t')).toBe(3);
  });

  it('with takePair declining a pair (undefined), takes the two points one by one', async () => {
    const { made, createLimiter } = storesOf(PairingStore);
    const limiter = new RateLimiter({ perPrincipal: { points: 2, durationSeconds: 60 }, perTool: { points: 3, durationSeconds: 60 }, createLimiter });
    made.get('principal')!.declines = true;
    expect(await limiter.consume('t', 'alice')).toEqual({ allowed: true });
    expect(made.get('principal')!.takes).toBe(1);
    expect(made.get('tool')!.takes).toBe(1);
  });
});

describe('the failed-authentication throttle on a store of your own (state.createLimiter)', () => {
  let http: Awaited<ReturnType<typeof startHttp>> | undefined;
  afterEach(async () => {
    await http?.close();
    http = undefined;
  });
  const authenticate = (req: IncomingMessage) => (req.headers.authorization === 'Bearer right' ? 'alice' : undefined);
  const statuses = async (createLimiter: CreateLimiter, count: number) => {
    const server = new ToolServer({ logger: memoryLogger().logger, audit: false, tasks: false, tools, state: { createLimiter } });
    http = await startHttp(server, { authenticate, authFailureLimit: { points: 2, durationSeconds: 60 } });
    const seen: number[] = [];
    for (let i = 0; i < count; i++) seen.push((await http.modern('tools/list', {}, { authorization: `Bearer guess-${i}` })).status);
    return seen;
  };

  it('counts each failure in it and blocks the address once the failure that uses up the allowance is counted', async () => {
    const { made, createLimiter } = storesOf(CountingStore);
    expect(await statuses(createLimiter, 4)).toEqual([401, 401, 429, 429]);
    expect([...made.get('auth-failures')!.counts.values()]).toEqual([2]);
  });

  it('takes a rate-limiter-flexible limiter as before, adapted', async () => {
    const made: RateLimiterMemory[] = [];
    const createLimiter: CreateLimiter = (rule, keyPrefix) => {
      const limiter = new RateLimiterMemory({ points: rule.points, duration: rule.durationSeconds, keyPrefix });
      made.push(limiter);
      return limiter;
    };
    expect(await statuses(createLimiter, 4)).toEqual([401, 401, 429, 429]);
    // One for the throttle, the rest for the rate limits (the ToolServer's per-caller and per-tool rules).
    expect(made.map((m) => m.keyPrefix)).toContain('auth-failures');
  });
});

describe('rate-limiter-flexible is known to one module', () => {
  it('policy/flexible-store.ts is the only source file that imports it', () => {
    const src = join(import.meta.dirname, '../../src');
    const importers = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.tsx?$/.test(f))
      .filter((f) => /['"]rate-limiter-flexible['"]/.test(readFileSync(join(src, f), 'utf8')))
      .map((f) => relative(src, join(src, f)));
    expect(importers).toEqual(['policy/flexible-store.ts']);
  });
});
