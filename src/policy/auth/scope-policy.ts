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
 * Resources, resource templates and prompts follow the same two sets
 * (`resources/read` and `prompts/get` are their calls), keyed by URI or
 * uriTemplate and by prompt name.
 */
export interface ScopePolicyOptions {
  /** Tool name → call scopes (wins over the tool's own `scopes`). */
  toolScopes?: Record<string, string[]>;
  /** Tool name → visibility scopes (wins over the tool's own `visibilityScopes`). */
  toolVisibility?: Record<string, string[]>;
  /** Resource URI or resource template (as registered) → read scopes (wins over the resource's own `scopes`). */
  resourceScopes?: Record<string, string[]>;
  /** Resource URI or resource template → visibility scopes (wins over the resource's own `visibilityScopes`). */
  resourceVisibility?: Record<string, string[]>;
  /** Prompt name → get scopes (wins over the prompt's own `scopes`). */
  promptScopes?: Record<string, string[]>;
  /** Prompt name → visibility scopes (wins over the prompt's own `visibilityScopes`). */
  promptVisibility?: Record<string, string[]>;
  /**
   * Call scopes of what names none: read-only tools (`readOnlyHint: true`),
   * the other tools, resources and templates (`resources`), prompts (`prompts`).
   */
  defaultScopes?: { readOnly?: string[]; other?: string[]; resources?: string[]; prompts?: string[] };
  /** Broader scope → the narrower scopes it implies (transitively). */
  scopeHierarchy?: Record<string, string[]>;
}

/** What the policy needs to know of a tool (a registry's compiled tool fits). */
interface ScopedTool {
  readonly name: string;
  readonly tool: {
    readonly scopes?: readonly string[];
    readonly visibilityScopes?: readonly string[];
    readonly annotations?: { readonly readOnlyHint?: boolean };
  };
}

/** What a resource, template or prompt says of itself (its definition's fields). */
export interface ScopeFields {
  readonly scopes?: readonly string[];
  readonly visibilityScopes?: readonly string[];
}

/** A resource, template or prompt as the policy sees it: its config key and its own fields (a registry's compiled entry fits). */
export interface ScopedEntry {
  /** The resource's URI, the template's uriTemplate, or the prompt's name. */
  readonly key: string;
  readonly own: ScopeFields;
}

export interface ToolRequirement {
  readonly call: readonly string[];
  readonly visibility: readonly string[];
  /** Both sets: what a call needs in all (the scope of a 403 challenge). */
  readonly all: readonly string[];
}

type ScopeDecision = { allowed: true } | { allowed: false; hidden: true } | { allowed: false; hidden: false; needed: readonly string[] };

const ALLOWED: ScopeDecision = Object.freeze({ allowed: true });
const HIDDEN: ScopeDecision = Object.freeze({ allowed: false, hidden: true });

export class ScopePolicy {
  private readonly hierarchy: ScopeHierarchy;
  private readonly toolScopes: ReadonlyMap<string, readonly string[]>;
  private readonly toolVisibility: ReadonlyMap<string, readonly string[]>;
  private readonly readOnlyDefault: readonly string[];
  private readonly otherDefault: readonly string[];
  private readonly resourceScopes: ReadonlyMap<string, readonly string[]>;
  private readonly resourceVisibility: ReadonlyMap<string, readonly string[]>;
  private readonly resourceDefault: readonly string[];
  private readonly promptScopes: ReadonlyMap<string, readonly string[]>;
  private readonly promptVisibility: ReadonlyMap<string, readonly string[]>;
  private readonly promptDefault: readonly string[];
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
    this.resourceScopes = checkedMap(options.resourceScopes, 'resourceScopes');
    this.resourceVisibility = checkedMap(options.resourceVisibility, 'resourceVisibility');
    this.resourceDefault = checkScopeList(options.defaultScopes?.resources ?? [], 'defaultScopes.resources');
    this.promptScopes = checkedMap(options.promptScopes, 'promptScopes');
    this.promptVisibility = checkedMap(options.promptVisibility, 'promptVisibility');
    this.promptDefault = checkScopeList(options.defaultScopes?.prompts ?? [], 'defaultScopes.prompts');
  }

  /** What reading a resource (or a resource of a template) needs; `entry.key` is its URI or uriTemplate. */
  resourceRequirement(entry: ScopedEntry): ToolRequirement {
    return this.entryRequirement(entry, this.resourceScopes, this.resourceVisibility, this.resourceDefault);
  }

  /** What getting a prompt needs; `entry.key` is its name. */
  promptRequirement(entry: ScopedEntry): ToolRequirement {
    return this.entryRequirement(entry, this.promptScopes, this.promptVisibility, this.promptDefault);
  }

  /** Whether `auth` may use what `req` guards, may not know of it, or may know of it but lacks scopes. */
  check(req: ToolRequirement, auth: AuthInfo): ScopeDecision {
    if (req.all.length === 0) return ALLOWED;
    const granted = this.granted(auth);
    if (!req.visibility.every((s) => granted.has(s))) return HIDDEN;
    if (req.call.every((s) => granted.has(s))) return ALLOWED;
    return { allowed: false, hidden: false, needed: req.all };
  }

  private entryRequirement(
    entry: ScopedEntry,
    callMap: ReadonlyMap<string, readonly string[]>,
    visibilityMap: ReadonlyMap<string, readonly string[]>,
    fallback: readonly string[],
  ): ToolRequirement {
    let found = this.requirements.get(entry);
    if (!found) {
      const call = callMap.get(entry.key) ?? entry.own.scopes ?? fallback;
      const visibility = visibilityMap.get(entry.key) ?? entry.own.visibilityScopes ?? [];
      found = Object.freeze({ call, visibility, all: [...new Set([...visibility, ...call])] });
      this.requirements.set(entry, found);
    }
    return found;
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
    return this.check(this.requirement(tool), auth);
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
