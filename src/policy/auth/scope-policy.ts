import type { AuthInfo } from './principal.js';
import { checkScopeList, ScopeHierarchy } from './scopes.js';

/**
 * Which scopes each tool needs (authorization/index "Scope Challenge
 * Handling"). Two sets per tool:
 * - call scopes: what a call needs. A caller without them who may know of
 *   the tool gets 403 `insufficient_scope` naming all of them, so it can
 *   step up in one round.
 * - visibility scopes: what a caller needs to know the tool exists. Without
 *   them the tool is absent from `tools/list` and calling it is the same
 *   unknown-tool error as for a tool that does not exist.
 * `tools/list` shows a caller the tools it may call: both sets held.
 */
export interface ScopePolicyOptions {
  /** Tool name → call scopes (wins over the tool's own `scopes`). */
  toolScopes?: Record<string, string[]>;
  /** Tool name → visibility scopes (wins over the tool's own `visibilityScopes`). */
  toolVisibility?: Record<string, string[]>;
  /** Call scopes of tools that name none: read-only tools (`readOnlyHint: true`) and the others. */
  defaultScopes?: { readOnly?: string[]; other?: string[] };
  /** Broader scope → the narrower scopes it implies (transitively). */
  scopeHierarchy?: Record<string, string[]>;
}

/** What the policy needs to know of a tool (a registry's compiled tool fits). */
export interface ScopedTool {
  readonly name: string;
  readonly tool: {
    readonly scopes?: readonly string[];
    readonly visibilityScopes?: readonly string[];
    readonly annotations?: { readonly readOnlyHint?: boolean };
  };
}

export interface ToolRequirement {
  readonly call: readonly string[];
  readonly visibility: readonly string[];
  /** Both sets: what a call needs in all (the scope of a 403 challenge). */
  readonly all: readonly string[];
}

export type ScopeDecision = { allowed: true } | { allowed: false; hidden: true } | { allowed: false; hidden: false; needed: readonly string[] };

const ALLOWED: ScopeDecision = Object.freeze({ allowed: true });
const HIDDEN: ScopeDecision = Object.freeze({ allowed: false, hidden: true });

export class ScopePolicy {
  private readonly hierarchy: ScopeHierarchy;
  private readonly toolScopes: ReadonlyMap<string, readonly string[]>;
  private readonly toolVisibility: ReadonlyMap<string, readonly string[]>;
  private readonly readOnlyDefault: readonly string[];
  private readonly otherDefault: readonly string[];
  // Compiled tools and verified AuthInfo objects are immutable and reused: compute once each.
  private readonly requirements = new WeakMap<object, ToolRequirement>();
  private readonly grants = new WeakMap<AuthInfo, ReadonlySet<string>>();

  constructor(options: ScopePolicyOptions = {}) {
    const hierarchy = options.scopeHierarchy ?? {};
    for (const [broad, narrower] of Object.entries(hierarchy)) checkScopeList([broad, ...(narrower as unknown[])], `scopeHierarchy.${broad}`);
    this.hierarchy = new ScopeHierarchy(hierarchy);
    this.toolScopes = checkedMap(options.toolScopes, 'toolScopes');
    this.toolVisibility = checkedMap(options.toolVisibility, 'toolVisibility');
    this.readOnlyDefault = checkScopeList(options.defaultScopes?.readOnly ?? [], 'defaultScopes.readOnly');
    this.otherDefault = checkScopeList(options.defaultScopes?.other ?? [], 'defaultScopes.other');
  }

  requirement(tool: ScopedTool): ToolRequirement {
    let found = this.requirements.get(tool);
    if (!found) {
      const t = tool.tool;
      const call = this.toolScopes.get(tool.name) ?? t.scopes ?? (t.annotations?.readOnlyHint === true ? this.readOnlyDefault : this.otherDefault);
      const visibility = this.toolVisibility.get(tool.name) ?? t.visibilityScopes ?? [];
      found = Object.freeze({ call, visibility, all: [...new Set([...visibility, ...call])] });
      this.requirements.set(tool, found);
    }
    return found;
  }

  /** Every scope the caller holds, implied ones included. */
  granted(auth: AuthInfo): ReadonlySet<string> {
    let set = this.grants.get(auth);
    if (!set) {
      set = this.hierarchy.expand(auth.scopes ?? []);
      this.grants.set(auth, set);
    }
    return set;
  }

  /** Whether `auth` may call `tool`, may not know of it, or may know of it but lacks scopes. */
  decide(tool: ScopedTool, auth: AuthInfo): ScopeDecision {
    const req = this.requirement(tool);
    if (req.all.length === 0) return ALLOWED;
    const granted = this.granted(auth);
    if (!req.visibility.every((s) => granted.has(s))) return HIDDEN;
    if (req.call.every((s) => granted.has(s))) return ALLOWED;
    return { allowed: false, hidden: false, needed: req.all };
  }

  /** Whether `tools/list` shows `tool` to a caller holding `granted`. */
  lists(tool: ScopedTool, granted: ReadonlySet<string>): boolean {
    return this.requirement(tool).all.every((s) => granted.has(s));
  }
}

function checkedMap(record: Record<string, string[]> | undefined, where: string): ReadonlyMap<string, readonly string[]> {
  const map = new Map<string, readonly string[]>();
  for (const [name, scopes] of Object.entries(record ?? {})) map.set(name, checkScopeList(scopes, `${where}.${name}`));
  return map;
}
