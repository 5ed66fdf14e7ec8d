/** `points` calls per `durationSeconds`, as a fixed window that starts with the first call and refills when it ends. */
export interface RateLimitRule {
  points: number;
  durationSeconds: number;
}

/** A key's window as it stands: points used and ms until it refills. */
export interface RateLimitWindow {
  used: number;
  resetsInMs: number;
}

/** What a take comes to: undefined, the point was taken; a number, it was refused and a point is free in that many ms (at least 1). */
export type RateLimitTake = number | undefined;

/** Turns what a paired take counted (the caller's outcome, the tool's) into the call's decision. */
export type RateLimitPairDecide<T> = (caller: RateLimitTake, tool: RateLimitTake) => T;

/** The tool's side of a paired take: the tool rule's store and the key to count under. */
export interface RateLimitPairTool {
  store: RateLimitStore;
  key: string;
}

/**
 * Where one rule's points are counted (docs/scale-out.md, "Rate limits of your own"): one store
 * per rule, keyed by tool name, caller or client address. The in-process fixed windows
 * (policy/fixed-windows.ts) and the Redis state (state/redis/limits.ts) are two; a
 * rate-limiter-flexible limiter is adapted into one (policy/flexible-store.ts).
 *
 * A store may answer synchronously: the in-process one does, so a call costs no promise.
 * A rejection (or a throw) means the store failed, which is not a limit decision: the request
 * is refused, or counted elsewhere, by the failure policy of whoever asked.
 */
export interface RateLimitStore {
  /** Takes a point for `key`: undefined when it was taken, else the ms until one is free. */
  take(key: string): RateLimitTake | Promise<RateLimitTake>;
  /** The key's window as it stands, no point taken (undefined: none, or it ended). */
  peek(key: string): RateLimitWindow | undefined | Promise<RateLimitWindow | undefined>;
  /**
   * Gives back the point a `take(key)` asked for; `outcome` is what that take answered. Called
   * when a store without `takePair` took the tool's point beside a caller's that was refused, so
   * that a caller over its own limit does not spend the tool's budget (best effort, nothing
   * awaited). A store that counts refused takes too (rate-limiter-flexible's do) gives it back
   * either way; one that does not, only when the point was taken. Without it the point stays spent.
   */
  refund?(key: string, outcome: RateLimitTake): void;
  /** Every live window, for the operator's view; leave it out where keys cannot be listed (a shared store). */
  live?(): Iterable<RateLimitWindow & { key: string }>;
  /**
   * Takes the caller's point (`key`, in this store) and then, only when that was taken, the
   * tool's (`tool`, usually another store of the same engine) in one command, and settles the
   * returned promise with `decide(callerOutcome, toolOutcome)` (the tool's outcome undefined
   * when it was not asked). Undefined: it cannot for this pair (the points are then taken one
   * by one with `take`).
   */
  takePair?<T>(key: string, tool: RateLimitPairTool | undefined, decide: RateLimitPairDecide<T>): Promise<T> | undefined;
}

/** Builds the store for one rule; `name` says which ('principal', 'tool', 'tool:<name>', 'auth-failures'), for keys that keep rules apart. */
export type CreateRateLimitStore = (rule: RateLimitRule, name: string) => RateLimitStore;
