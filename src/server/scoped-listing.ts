import type { AuthInfo } from '../policy/auth/principal.js';
import type { ScopePolicy } from '../policy/auth/scope-policy.js';
import type { CacheHints, ResultEncoder } from '../protocol/result.js';
import type { Era } from '../protocol/versions.js';
import type { CompiledTool } from './compile-tool.js';
import { ToolListing } from './listing.js';
import type { ToolRegistry } from './registry.js';

/** Distinct scope sets whose pages are kept; past it the oldest set's pages go (they are rebuilt on demand). */
const MAX_SCOPE_SETS = 256;

/** One scope set's view of the registry: the tools it may call, rebuilt when the registry changes. */
class ScopedView {
  private builtFor = -1;
  private tools: readonly CompiledTool[] = [];
  readonly listing: ToolListing;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly policy: ScopePolicy,
    private readonly granted: ReadonlySet<string>,
    pageSize: number,
    cache: CacheHints,
    results: ResultEncoder,
  ) {
    this.listing = new ToolListing(this, pageSize, cache, results);
  }

  get version(): number {
    return this.registry.version;
  }

  list(): readonly CompiledTool[] {
    if (this.builtFor !== this.registry.version) {
      this.tools = this.registry.list().filter((tool) => this.policy.lists(tool, this.granted));
      this.builtFor = this.registry.version;
    }
    return this.tools;
  }
}

/**
 * `tools/list` per caller: a caller whose credentials carry scopes sees only
 * the tools it may call. Pages are built once per registry change and scope
 * set, never per request: callers are grouped by the scopes that matter (the
 * ones some tool requires), so two tokens with the same relevant scopes share
 * pages. Such a list is `cacheScope: "private"` (it is not the same for
 * everyone); access never relies on it: the authorize stage checks every call.
 */
export class ScopedToolListing {
  private readonly open: ToolListing;
  private readonly views = new Map<string, ScopedView>();
  private readonly privateHints: CacheHints;
  private relevantFor = -1;
  private relevant: ReadonlySet<string> = new Set();
  // A verified AuthInfo is reused while its token is cached: its view is found without recomputing the key.
  private readonly byAuth = new WeakMap<AuthInfo, { version: number; view: ScopedView | undefined }>();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly pageSize: number,
    cache: CacheHints,
    private readonly results: ResultEncoder,
    private readonly policy: ScopePolicy,
  ) {
    this.open = new ToolListing(registry, pageSize, cache, results);
    this.privateHints = { ...cache, cacheScope: 'private' };
  }

  pageJson(era: Era, cursor: unknown, auth?: AuthInfo): string {
    const view = this.viewFor(auth);
    return view ? view.listing.pageJson(era, cursor) : this.open.pageJson(era, cursor);
  }

  /** The tools `auth` is shown (all of them for a caller without scopes). */
  visibleTools(auth?: AuthInfo): readonly CompiledTool[] {
    return this.viewFor(auth)?.list() ?? this.registry.list();
  }

  /**
   * For a live list-change subscriber: a check that says whether the tools
   * `auth` is shown changed since the last check (or since the watch began).
   * A change to tools the caller cannot see is no news to it.
   */
  watch(auth: AuthInfo | undefined): () => boolean {
    let seen = this.visibleTools(auth);
    return () => {
      const now = this.visibleTools(auth);
      const changed = now.length !== seen.length || now.some((tool, i) => tool !== seen[i]);
      seen = now;
      return changed;
    };
  }

  /** Undefined: the caller is shown every tool (no scope information, or no tool requires any scope). */
  private viewFor(auth: AuthInfo | undefined): ScopedView | undefined {
    if (auth?.scopes === undefined) return undefined;
    const known = this.byAuth.get(auth);
    if (known && known.version === this.registry.version) return known.view;
    const view = this.findView(auth);
    this.byAuth.set(auth, { version: this.registry.version, view });
    return view;
  }

  private findView(auth: AuthInfo): ScopedView | undefined {
    const relevant = this.relevantScopes();
    if (relevant.size === 0) return undefined;
    const granted = this.policy.granted(auth);
    const key = [...relevant].filter((s) => granted.has(s)).sort().join(' ');
    let view = this.views.get(key);
    if (!view) {
      if (this.views.size >= MAX_SCOPE_SETS) this.views.delete(this.views.keys().next().value!);
      view = new ScopedView(this.registry, this.policy, new Set(key ? key.split(' ') : []), this.pageSize, this.privateHints, this.results);
      this.views.set(key, view);
    }
    return view;
  }

  /** Scopes some tool requires, recomputed when the registry changes. */
  private relevantScopes(): ReadonlySet<string> {
    if (this.relevantFor !== this.registry.version) {
      const scopes = new Set<string>();
      for (const tool of this.registry.list()) for (const s of this.policy.requirement(tool).all) scopes.add(s);
      this.relevant = scopes;
      this.relevantFor = this.registry.version;
      this.views.clear();
    }
    return this.relevant;
  }
}
