import type { CreateLimiter } from './flexible-store.js';
import type { RateLimitPairDecide, RateLimitPairTool, RateLimitRule, RateLimitStore, RateLimitTake } from './rate-limit-store.js';
import type { RateLimitUse, RateLimitUsage } from './rate-limit-usage.js';
import { storeMaker } from './rule-stores.js';

export type { CreateLimiter, FlexibleLimiter } from './flexible-store.js';
export type {
  CreateRateLimitStore,
  RateLimitPairDecide,
  RateLimitPairTool,
  RateLimitRule,
  RateLimitStore,
  RateLimitTake,
  RateLimitWindow,
} from './rate-limit-store.js';

export interface RateLimitOptions {
  /** Applies to each tool separately (all callers together); false: none. Default 6,000 a minute. */
  perTool?: RateLimitRule | false;
  /** Applies to each caller separately (all tools together); anonymous callers share one bucket; false: none. Default 1,200 a minute. */
  perPrincipal?: RateLimitRule | false;
  /** Rules for particular tools, replacing `perTool` for them (false: no per-tool limit for that tool). */
  tools?: Record<string, RateLimitRule | false>;
  /**
   * Builds the store for each rule (docs/scale-out.md, "Rate limits of your own"): a
   * RateLimitStore, or a rate-limiter-flexible limiter such as RateLimiterRedis, adapted into one.
   * Default: an in-process fixed window per key.
   */
  createLimiter?: CreateLimiter;
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

/** How a tool's calls take their points in one command with the caller's (a store with takePair). */
interface PairPlan {
  tool: RateLimitPairTool | undefined;
  decide: RateLimitPairDecide<RateDecision>;
}

interface Limit {
  rule: RateLimitRule;
  store: RateLimitStore;
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
 * a store from `createLimiter` may answer asynchronously.
 */
export class RateLimiter {
  private readonly perTool?: Limit;
  private readonly perPrincipal?: Limit;
  /**
   * The anonymous callers' shared bucket, apart from `perPrincipal.store` (which
   * is keyed by the principal itself): an authenticated caller named
   * "anonymous" never shares it, and no key string is built per call.
   */
  private readonly anonymous?: RateLimitStore;
  /** A tool's own rule, or null when it is exempt from the per-tool limit. */
  private readonly toolSpecific = new Map<string, Limit | null>();
  /** Per tool: how its calls take both points in one store command (stores with takePair only). */
  private readonly pairPlans = new Map<string, PairPlan>();

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
   * A store that takes both points in one command (`takePair`; the built-in Redis state: one
   * Lua script), the tool's only when the caller is within its limit. Undefined when the
   * store cannot (an in-process store, a rate-limiter-flexible limiter, a tool counted elsewhere).
   */
  private consumePaired(tool: string, principal: string | undefined): Promise<RateDecision> | undefined {
    const callers = principal === undefined ? this.anonymous! : this.perPrincipal!.store;
    if (callers.takePair === undefined) return undefined;
    let plan = this.pairPlans.get(tool);
    if (plan === undefined) plan = this.planPair(tool);
    return callers.takePair(principal ?? '', plan.tool, plan.decide);
  }

  /** A tool's pair plan, made on its first call and kept (tool names are few; the cache is bounded all the same). */
  private planPair(tool: string): PairPlan {
    const limit = this.toolLimit(tool);
    const principalRule = this.perPrincipal!.rule;
    const plan: PairPlan = {
      tool: limit && { store: limit.store, key: tool },
      decide: (principalMs: RateLimitTake, toolMs: RateLimitTake): RateDecision => {
        if (principalMs !== undefined) return refused(principalMs, principalRule, 'principal');
        return toolMs === undefined ? ALLOWED : refused(toolMs, limit!.rule, 'tool');
      },
    };
    if (this.pairPlans.size >= MAX_PAIR_PLANS) this.pairPlans.clear();
    this.pairPlans.set(tool, plan);
    return plan;
  }

  /**
   * A store that answers asynchronously and has no takePair (a shared one): the tool's point is
   * asked for together with the caller's, one round trip instead of two (sent in one write), and
   * given back when the caller turns out to be over its own limit, so such a caller still does
   * not spend the tool's budget.
   */
  private consumeBoth(principalTaken: Promise<RateLimitTake>, tool: string): Promise<RateDecision> {
    const principalRule = this.perPrincipal!.rule;
    const limit = this.toolLimit(tool);
    const toolTaken = limit?.store.take(tool);
    return Promise.all([principalTaken, toolTaken]).then(([principalMs, toolMs]) => {
      if (principalMs !== undefined) {
        // The tool's point was asked for beside the caller's: give it back (the store is told what its take answered).
        limit?.store.refund?.(tool, toolMs);
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
    const add = (name: string, scope: RateLimitUse['scope'], limit: Limit, stores: RateLimitStore[]) => {
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
    const read = async (name: string, scope: RateLimitUse['scope'], limit: Limit, store: RateLimitStore, key: string): Promise<RateLimitUse[]> => {
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

function check(rule: RateLimitRule): RateLimitRule {
  if (!(Number.isInteger(rule.points) && rule.points > 0 && rule.durationSeconds > 0 && Number.isFinite(rule.durationSeconds))) {
    throw new RangeError('a rate limit needs a positive integer `points` and a positive, finite `durationSeconds`');
  }
  return rule;
}
