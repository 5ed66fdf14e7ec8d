import { createRequire } from 'node:module';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';

type Flexible = typeof import('rate-limiter-flexible');
// Loaded only by a server that sets a rate limit: it costs start-up time otherwise.
const loadFlexible = (): Flexible => createRequire(import.meta.url)('rate-limiter-flexible') as Flexible;

/** `points` calls per `durationSeconds`, as a bucket that refills each window. */
export interface RateLimitRule {
  points: number;
  durationSeconds: number;
}

export interface RateLimitOptions {
  /** Applies to each tool separately (all callers together). */
  perTool?: RateLimitRule;
  /** Applies to each caller separately (all tools together); anonymous callers share one bucket. */
  perPrincipal?: RateLimitRule;
  /** Rules for particular tools, replacing `perTool` for them. */
  tools?: Record<string, RateLimitRule>;
  /**
   * Builds the limiter for a rule. Default: rate-limiter-flexible's in-memory
   * store; pass one that returns a RateLimiterRedis to share limits across instances.
   */
  createLimiter?: (rule: RateLimitRule, keyPrefix: string) => RateLimiterAbstract;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number; rule: RateLimitRule; scope: 'tool' | 'principal' };

/** Per-tool and per-principal limits, consulted once per call. */
export class RateLimiter {
  private readonly make: (rule: RateLimitRule, keyPrefix: string) => RateLimiterAbstract;
  private readonly perTool?: RateLimiterAbstract;
  private readonly perPrincipal?: RateLimiterAbstract;
  private readonly toolSpecific = new Map<string, { limiter: RateLimiterAbstract; rule: RateLimitRule }>();

  private readonly flexible: Flexible;

  constructor(private readonly options: RateLimitOptions) {
    this.flexible = loadFlexible();
    const { RateLimiterMemory } = this.flexible;
    this.make = options.createLimiter ?? ((rule, keyPrefix) => new RateLimiterMemory({ points: rule.points, duration: rule.durationSeconds, keyPrefix }));
    if (options.perTool) this.perTool = this.make(check(options.perTool), 'tool');
    if (options.perPrincipal) this.perPrincipal = this.make(check(options.perPrincipal), 'principal');
    for (const [name, rule] of Object.entries(options.tools ?? {})) {
      this.toolSpecific.set(name, { limiter: this.make(check(rule), `tool:${name}`), rule });
    }
  }

  async consume(tool: string, principal: string | undefined): Promise<RateDecision> {
    const specific = this.toolSpecific.get(tool);
    const toolLimiter = specific?.limiter ?? this.perTool;
    const toolRule = specific?.rule ?? this.options.perTool;
    if (toolLimiter && toolRule) {
      const denied = await this.attempt(toolLimiter, tool);
      if (denied !== undefined) return { allowed: false, retryAfterMs: denied, rule: toolRule, scope: 'tool' };
    }
    if (this.perPrincipal && this.options.perPrincipal) {
      const denied = await this.attempt(this.perPrincipal, principal ?? 'anonymous');
      if (denied !== undefined) return { allowed: false, retryAfterMs: denied, rule: this.options.perPrincipal, scope: 'principal' };
    }
    return { allowed: true };
  }

  /** Undefined when the point was taken; otherwise how long until one is free. */
  private async attempt(limiter: RateLimiterAbstract, key: string): Promise<number | undefined> {
    try {
      await limiter.consume(key, 1);
      return undefined;
    } catch (res) {
      if (res instanceof this.flexible.RateLimiterRes) return res.msBeforeNext;
      throw res; // the store failed (e.g. Redis down): not a limit decision
    }
  }
}

function check(rule: RateLimitRule): RateLimitRule {
  if (!(Number.isInteger(rule.points) && rule.points > 0 && rule.durationSeconds > 0)) {
    throw new RangeError('a rate limit needs a positive integer `points` and a positive `durationSeconds`');
  }
  return rule;
}
