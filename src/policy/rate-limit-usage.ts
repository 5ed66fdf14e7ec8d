// What a rate limiter reports of its use (the console's Limits panel): plain types with no
// imports, so the console's front end (src/console/ui, browser code) shares them.

/** One key's use of one rule, for the operator's view (the console's Limits panel). */
export interface RateLimitUse {
  /** 'perPrincipal', 'perTool', or 'tools.<name>' (a tool's own rule). */
  rule: string;
  scope: 'principal' | 'tool';
  /** A tool's name, or a caller's key (callerKey: never a credential); '' is the anonymous callers' shared bucket. */
  key: string;
  used: number;
  points: number;
  durationSeconds: number;
  /** Ms until the key's window ends and its points refill. */
  resetsInMs: number;
}

/** What the limiter can say about its current use without taking a point. */
export interface RateLimitUsage {
  /** 'in-process': every live window is listed; 'shared' (Redis, or another createLimiter): none is, ask per key (usageFor). */
  store: 'in-process' | 'shared';
  rules: Array<{ rule: string; scope: 'principal' | 'tool'; points: number; durationSeconds: number }>;
  /** The live windows, most used first (share of the rule's points), at most `max`. */
  entries: RateLimitUse[];
  /** More windows were live than were listed. */
  truncated: boolean;
}
