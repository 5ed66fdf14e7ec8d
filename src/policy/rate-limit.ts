import { createRequire } from 'node:module';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { FixedWindows } from './fixed-windows.js';
import type { RateLimitUse, RateLimitUsage } from './rate-limit-usage.js';

/** `points` calls per `durationSeconds`, as a fixed window that starts with the first call and refills when it ends. */
export interface RateLimitRule {
  points: number;
  durationSeconds: number;
}

export interface RateLimitOptions {
  /** Applies to each tool separately (all callers together); false: none. Default 6,000 a minute. */
  perTool?: RateLimitRule | false;
  /** Applies to each caller separately (all tools together); anonymous callers share one bucket; false: none. Default 1,200 a minute. */
  perPrincipal?: RateLimitRule | false;
  /** Rules for particular tools, replacing `perTool` for them (false: no per-tool limit for that tool). */
  tools?: Record<string, RateLimitRule | false>;
  /**
   * Builds the limiter for a rule. Default: an in-process fixed window per key;
   * pass one that returns a rate-limiter-flexible RateLimiterRedis to share limits across instances.
   */
  createLimiter?: (rule: RateLimitRule, keyPrefix: string) => RateLimiterAbstract;
}

/**
 * On unless switched off (tools.mdx "Security Considerations": servers MUST rate limit tool
 * invocations). Generous on purpose: a model calls a few tools a minute and a script a few a
 * second, so only a runaway loop or a flood meets them. Per caller, 1,200 a minute (20/s on
 * average, any burst up to that) across all tools; per tool, five times that across all
 * callers, which bounds the load one tool puts on what it drives (processes, outside APIs)
 * while no single caller can take more than a fifth of it.
 */
export const DEFAULT_RATE_LIMIT: Readonly<{ perPrincipal: RateLimitRule; perTool: RateLimitRule }> = Object.freeze({
  perPrincipal: Object.freeze({ points: 1200, durationSeconds: 60 }),
  perTool: Object.freeze({ points: 6000, durationSeconds: 60 }),
});

/** Undefined: the point was taken. A number: ms until one is free. */
type Attempt = number | undefined;

/**
 * Where a limiter from `createLimiter` can take a caller's point and a tool's in one
 * store command (the built-in Redis state: src/state/redis/limits.ts): the tool's point
 * only when the caller's was taken. `decide` turns what the store counted into the call's
 * decision (the store settles each call with it directly: no promise chained per call).
 * Undefined: it cannot for this pair (the points are then taken apart). A rejection: the
 * store failed (not a limit decision).
 */
export const TAKE_PAIR: unique symbol = Symbol('toolwright.rateLimit.takePair');
export type PairTake = (
  callerKey: string,
  tool: { limiter: RateLimiterAbstract; key: string } | undefined,
  decide: PairDecide,
) => Promise<RateDecision> | undefined;
/** A paired take's decision from the ms left of each window that is over its limit (undefined: within it). */
export type PairDecide = (caller: Attempt, tool: Attempt) => RateDecision;

/** How a tool's calls take their points in one command with the caller's (null in the cache: they cannot). */
interface PairPlan {
  tool: { limiter: RateLimiterAbstract; key: string } | undefined;
  decide: PairDecide;
}

/** A key's window as it stands: points used and ms until it refills. */
interface WindowUse {
  used: number;
  resetsInMs: number;
}

/** One rule's counters: keyed by tool name or caller. */
interface RuleStore {
  take(key: string): Attempt | Promise<Attempt>;
  /** The key's current window, no point taken (undefined: none, or it ended). */
  peek(key: string): WindowUse | undefined | Promise<WindowUse | undefined>;
  /** Every live window: the in-process store only (a shared store is not scanned). */
  live?(): Iterable<WindowUse & { key: string }>;
  /** Gives back a point taken (a shared store only; best effort). */
  refund?(key: string): void;
  /** A shared store's limiter and its key for a given key, for a paired take. */
  shared?: { limiter: RateLimiterAbstract; keyOf(key: string): string };
}

interface Limit {
  rule: RateLimitRule;
  store: RuleStore;
}

export type { RateLimitUse, RateLimitUsage } from './rate-limit-usage.js';

/** The most windows `usage()` lists by default. */
export const MAX_USAGE_ENTRIES = 200;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number; rule: RateLimitRule; scope: 'tool' | 'principal' };

const ALLOWED: RateDecision = Object.freeze({ allowed: true });

/** The most tools whose pair plans are kept at once. */
const MAX_PAIR_PLANS = 1024;

/**
 * Per-principal and per-tool limits, consulted once per call. With the
 * default in-process store a decision is synchronous (no promise per call);
 * a shared store (`createLimiter`) answers asynchronously.
 */
export class RateLimiter {
  private readonly perTool?: Limit;
  private readonly perPrincipal?: Limit;
  /**
   * The anonymous callers' shared bucket, apart from `perPrincipal.store` (which
   * is keyed by the principal itself): an authenticated caller named
   * "anonymous" never shares it, and no key string is built per call.
   */
  private readonly anonymous?: RuleStore;
  /** A tool's own rule, or null when it is exempt from the per-tool limit. */
  private readonly toolSpecific = new Map<string, Limit | null>();
  /** Per tool: how its calls take both points in one store command (a shared store only). */
  private readonly pairPlans = new Map<string, PairPlan | null>();

  /** `options` as given: rules it leaves out are not applied (see `withRateLimitDefaults`). */
  constructor(options: RateLimitOptions) {
    const make = storeMaker(options.createLimiter);
    if (options.perTool) this.perTool = { rule: check(options.perTool), store: make(options.perTool, 'tool') };
    if (options.perPrincipal) {
      const rule = check(options.perPrincipal);
      const [callers, anonymous] = make.perCaller(rule);
      this.perPrincipal = { rule, store: callers };
      this.anonymous = anonymous;
    }
    for (const [name, rule] of Object.entries(options.tools ?? {})) {
      this.toolSpecific.set(name, rule ? { rule: check(rule), store: make(rule, `tool:${name}`) } : null);
    }
  }

  /**
   * Takes a point for this call. The caller's own limit is asked first: a
   * caller over its limit is refused without spending the tool's budget,
   * which all callers share. `principal`: the caller's key (callerKey);
   * undefined for the anonymous caller, who shares one bucket.
   */
  consume(tool: string, principal: string | undefined): RateDecision | Promise<RateDecision> {
    if (!this.perPrincipal) return this.consumeTool(tool);
    const paired = this.consumePaired(tool, principal);
    if (paired) return paired;
    const taken = principal === undefined ? this.anonymous!.take('') : this.perPrincipal.store.take(principal);
    if (taken === undefined) return this.consumeTool(tool);
    if (typeof taken === 'number') return refused(taken, this.perPrincipal.rule, 'principal');
    return this.consumeBoth(taken, tool);
  }

  /**
   * A shared store that takes both points in one command (the built-in Redis state: one
   * Lua script), the tool's only when the caller is within its limit. Undefined when the
   * store cannot (an in-process store, another engine's limiter).
   */
  private consumePaired(tool: string, principal: string | undefined): Promise<RateDecision> | undefined {
    const callers = principal === undefined ? this.anonymous! : this.perPrincipal!.store;
    const takePair = (callers.shared?.limiter as { [TAKE_PAIR]?: PairTake } | undefined)?.[TAKE_PAIR];
    if (!takePair) return undefined;
    let plan = this.pairPlans.get(tool);
    if (plan === undefined) plan = this.planPair(tool);
    return plan ? takePair(callers.shared!.keyOf(principal ?? ''), plan.tool, plan.decide) : undefined;
  }

  /** A tool's pair plan, made on its first call and kept (tool names are few; the cache is bounded all the same). */
  private planPair(tool: string): PairPlan | null {
    const limit = this.toolLimit(tool);
    const toolShared = limit?.store.shared;
    const principalRule = this.perPrincipal!.rule;
    const plan =
      limit && !toolShared
        ? null
        : {
            tool: toolShared && { limiter: toolShared.limiter, key: toolShared.keyOf(tool) },
            decide: (principalMs: Attempt, toolMs: Attempt): RateDecision => {
              if (principalMs !== undefined) return refused(principalMs, principalRule, 'principal');
              return toolMs === undefined ? ALLOWED : refused(toolMs, limit!.rule, 'tool');
            },
          };
    if (this.pairPlans.size >= MAX_PAIR_PLANS) this.pairPlans.clear();
    this.pairPlans.set(tool, plan);
    return plan;
  }

  /**
   * A shared store (Redis): the tool's point is asked for together with the caller's, one
   * round trip instead of two (sent in one write), and given back when the caller turns out
   * to be over its own limit, so such a caller still does not spend the tool's budget.
   */
  private consumeBoth(principalTaken: Promise<Attempt>, tool: string): Promise<RateDecision> {
    const principalRule = this.perPrincipal!.rule;
    const limit = this.toolLimit(tool);
    const toolTaken = limit?.store.take(tool);
    return Promise.all([principalTaken, toolTaken]).then(([principalMs, toolMs]) => {
      if (principalMs !== undefined) {
        // A refused take is counted too (rate-limiter-flexible): give it back either way.
        limit?.store.refund?.(tool);
        return refused(principalMs, principalRule, 'principal');
      }
      return toolMs === undefined ? ALLOWED : refused(toolMs, limit!.rule, 'tool');
    });
  }

  /**
   * The current use of every rule, read only (no point is taken). An in-process store lists its
   * live windows, most used first, at most `max`; a shared store lists none (it is not scanned).
   */
  usage(max = MAX_USAGE_ENTRIES): RateLimitUsage {
    const rules: RateLimitUsage['rules'] = [];
    const entries: RateLimitUse[] = [];
    let shared = false;
    const cap = Math.max(0, Math.trunc(max));
    const add = (name: string, scope: RateLimitUse['scope'], limit: Limit, stores: RuleStore[]) => {
      rules.push({ rule: name, scope, points: limit.rule.points, durationSeconds: limit.rule.durationSeconds });
      for (const store of stores) {
        if (!store.live) {
          shared = true;
          continue;
        }
        for (const window of store.live())
          entries.push({ rule: name, scope, ...window, points: limit.rule.points, durationSeconds: limit.rule.durationSeconds });
      }
    };
    if (this.perPrincipal) add('perPrincipal', 'principal', this.perPrincipal, [this.perPrincipal.store, this.anonymous!]);
    if (this.perTool) add('perTool', 'tool', this.perTool, [this.perTool.store]);
    for (const [name, limit] of this.toolSpecific) if (limit) add(`tools.${name}`, 'tool', limit, [limit.store]);
    entries.sort((a, b) => b.used / b.points - a.used / a.points || b.used - a.used || a.key.localeCompare(b.key));
    return { store: shared ? 'shared' : 'in-process', rules, entries: entries.slice(0, cap), truncated: entries.length > cap };
  }

  /**
   * One caller's use (its key, callerKey; '' or undefined: the anonymous callers' bucket) and,
   * given a tool, that tool's: what a shared store can answer without scanning its keys.
   */
  async usageFor(principal: string | undefined, tool?: string): Promise<RateLimitUse[]> {
    // Both windows are read at once (a shared store: two commands in one write, not two round trips).
    const read = async (name: string, scope: RateLimitUse['scope'], limit: Limit, store: RuleStore, key: string): Promise<RateLimitUse[]> => {
      const window = await store.peek(key);
      return window ? [{ rule: name, scope, key, ...window, points: limit.rule.points, durationSeconds: limit.rule.durationSeconds }] : [];
    };
    const reads: Promise<RateLimitUse[]>[] = [];
    if (this.perPrincipal) {
      const anonymous = principal === undefined || principal === '';
      reads.push(read('perPrincipal', 'principal', this.perPrincipal, anonymous ? this.anonymous! : this.perPrincipal.store, anonymous ? '' : principal));
    }
    if (tool !== undefined) {
      const specific = this.toolSpecific.get(tool);
      const limit = this.toolLimit(tool);
      if (limit) reads.push(read(specific ? `tools.${tool}` : 'perTool', 'tool', limit, limit.store, tool));
    }
    return (await Promise.all(reads)).flat();
  }

  private toolLimit(tool: string): Limit | undefined {
    const specific = this.toolSpecific.get(tool);
    return (specific === undefined ? this.perTool : specific) ?? undefined;
  }

  private consumeTool(tool: string): RateDecision | Promise<RateDecision> {
    const limit = this.toolLimit(tool);
    if (!limit) return ALLOWED;
    const taken = limit.store.take(tool);
    if (taken === undefined) return ALLOWED;
    if (typeof taken === 'number') return refused(taken, limit.rule, 'tool');
    return taken.then((ms) => (ms === undefined ? ALLOWED : refused(ms, limit.rule, 'tool')));
  }
}

/**
 * A server's `limits.rateLimit` with the defaults filled in: undefined → the
 * defaults; false → no limiter; an object → each rule it leaves out keeps its
 * default (`perTool: false` or `perPrincipal: false` switches one off).
 */
export function withRateLimitDefaults(option: RateLimitOptions | false | undefined): RateLimitOptions | undefined {
  if (option === false) return undefined;
  const given = option ?? {};
  const merged: RateLimitOptions = {
    ...given,
    perPrincipal: given.perPrincipal === undefined ? DEFAULT_RATE_LIMIT.perPrincipal : given.perPrincipal,
    perTool: given.perTool === undefined ? DEFAULT_RATE_LIMIT.perTool : given.perTool,
  };
  const anyRule = merged.perPrincipal || merged.perTool || Object.values(merged.tools ?? {}).some(Boolean);
  return anyRule ? merged : undefined;
}

function refused(retryAfterMs: number, rule: RateLimitRule, scope: 'tool' | 'principal'): RateDecision {
  return { allowed: false, retryAfterMs, rule, scope };
}

interface StoreMaker {
  (rule: RateLimitRule, keyPrefix: string): RuleStore;
  /** The per-caller stores: authenticated callers (keyed by principal), and the anonymous bucket. */
  perCaller(rule: RateLimitRule): [callers: RuleStore, anonymous: RuleStore];
}

function storeMaker(createLimiter: RateLimitOptions['createLimiter']): StoreMaker {
  if (!createLimiter) {
    const inProcess = (rule: RateLimitRule): RuleStore => new FixedWindows(rule.points, rule.durationSeconds * 1000);
    // Two maps: the principal string is the key as it comes, no `p:` prefix concatenated (and hashed afresh) per call.
    return Object.assign(inProcess, { perCaller: (rule: RateLimitRule): [RuleStore, RuleStore] => [inProcess(rule), inProcess(rule)] });
  }
  // Loaded only by a server that brings its own limiter store.
  type Flexible = typeof import('rate-limiter-flexible');
  const { RateLimiterRes } = createRequire(import.meta.url)('rate-limiter-flexible') as Flexible;
  const wrap = (limiter: RateLimiterAbstract, keyOf: (key: string) => string): RuleStore => ({
    shared: { limiter, keyOf },
    peek: async (key) => {
      const res = await limiter.get(keyOf(key));
      if (!res || res.consumedPoints <= 0) return undefined;
      return { used: res.consumedPoints, resetsInMs: Math.max(0, res.msBeforeNext) };
    },
    refund: (key) => void limiter.reward(keyOf(key), 1).catch(() => {}),
    take: async (key) => {
      try {
        await limiter.consume(keyOf(key), 1);
        return undefined;
      } catch (res) {
        if (res instanceof RateLimiterRes) return res.msBeforeNext;
        throw res; // the store failed (e.g. Redis down): not a limit decision
      }
    },
  });
  const shared = (rule: RateLimitRule, keyPrefix: string): RuleStore => wrap(createLimiter(rule, keyPrefix), (key) => key);
  return Object.assign(shared, {
    perCaller: (rule: RateLimitRule): [RuleStore, RuleStore] => {
      // One limiter, as before: authenticated callers keyed apart from the anonymous bucket, whatever their name.
      const limiter = createLimiter(rule, 'principal');
      return [wrap(limiter, (principal) => `p:${principal}`), wrap(limiter, () => 'anonymous')];
    },
  });
}

function check(rule: RateLimitRule): RateLimitRule {
  if (!(Number.isInteger(rule.points) && rule.points > 0 && rule.durationSeconds > 0 && Number.isFinite(rule.durationSeconds))) {
    throw new RangeError('a rate limit needs a positive integer `points` and a positive, finite `durationSeconds`');
  }
  return rule;
}
