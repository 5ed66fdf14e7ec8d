import type { AuthInfo } from '../policy/auth/principal.js';
import type { ScopePolicy, ToolRequirement } from '../policy/auth/scope-policy.js';
import type { CacheHints, ResultEncoder } from '../protocol/result.js';
import type { Era } from '../protocol/versions.js';
import type { CompiledTool } from './compile-tool.js';
import { PagedListing, type ListSource } from './listing.js';
import type { ToolRegistry } from './registry.js';
import { callerOf } from './exchange.js';
import type { Operation } from './pipeline/operation.js';

/** Distinct scope sets whose pages are kept; past it the oldest set's pages go (they are rebuilt on demand). */
const MAX_SCOPE_SETS = 256;

/** What a caller holding `granted` is shown of an item needing `req`: both sets held. */
const shows = (req: ToolRequirement, granted: ReadonlySet<string>) => req.all.every((s) => granted.has(s));

/** One scope set's view of a source: the items it may use, rebuilt when the source changes. */
class ScopedView<T extends { readonly wireJson: string }> implements ListSource<T> {
  private builtFor = -1;
  private items: readonly T[] = [];
  readonly listing: PagedListing<T>;

  constructor(
    private readonly source: ListSource<T>,
    private readonly visible: (item: T, granted: ReadonlySet<string>) => boolean,
    private readonly granted: ReadonlySet<string>,
    key: string,
    pageSize: number,
    cache: CacheHints,
    results: ResultEncoder,
  ) {
    this.listing = new PagedListing(this, key, pageSize, cache, results);
  }

  get version(): number {
    return this.source.version;
  }

  list(): readonly T[] {
    if (this.builtFor !== this.source.version) {
      this.items = this.source.list().filter((item) => this.visible(item, this.granted));
      this.builtFor = this.source.version;
    }
    return this.items;
  }
}

/**
 * A list method per caller (`tools/list`, `resources/list`,
 * `resources/templates/list`, `prompts/list`): a caller whose credentials
 * carry scopes sees only the items it may use. Pages are built once per
 * source change and scope set, never per request: callers are grouped by the
 * scopes that matter (the ones some item requires), so two tokens with the
 * same relevant scopes share pages. Such a list is `cacheScope: "private"`
 * (it is not the same for everyone); access never relies on it: every call,
 * read and get is checked on its own.
 */
export class ScopedListing<T extends { readonly wireJson: string }> {
  private readonly open: PagedListing<T>;
  private readonly views = new Map<string, ScopedView<T>>();
  private readonly privateHints: CacheHints;
  private relevantFor = -1;
  private relevant: ReadonlySet<string> = new Set();
  // A verified AuthInfo is reused while its token is cached: its view is found without recomputing the key.
  private readonly byAuth = new WeakMap<AuthInfo, { version: number; view: ScopedView<T> | undefined }>();

  constructor(
    private readonly source: ListSource<T>,
    private readonly key: string,
    private readonly pageSize: number,
    cache: CacheHints,
    private readonly results: ResultEncoder,
    protected readonly policy: ScopePolicy,
    private readonly requirementOf: (item: T) => ToolRequirement,
    private readonly visible: (item: T, granted: ReadonlySet<string>) => boolean = (item, granted) => shows(requirementOf(item), granted),
  ) {
    this.open = new PagedListing(source, key, pageSize, cache, results);
    this.privateHints = { ...cache, cacheScope: 'private' };
  }

  pageJson(era: Era, cursor: unknown, auth?: AuthInfo): string {
    const view = this.viewFor(auth);
    return view ? view.listing.pageJson(era, cursor) : this.open.pageJson(era, cursor);
  }

  /** The page as a result object carrying its JSON (PagedListing.page). */
  page(era: Era, cursor: unknown, auth?: AuthInfo): Record<string, unknown> {
    const view = this.viewFor(auth);
    return view ? view.listing.page(era, cursor) : this.open.page(era, cursor);
  }

  /** The list method's run (methods.runs): the page the cursor names, for the request's era and caller. */
  readonly run = (op: Operation, params: Record<string, unknown>) => this.page(op.info.era, params.cursor, callerOf(op.exchange));

  /** The items `auth` is shown (all of them for a caller without scopes). */
  visibleItems(auth?: AuthInfo): readonly T[] {
    return this.viewFor(auth)?.list() ?? this.source.list();
  }

  /**
   * For a live list-change subscriber: a check that says whether the items
   * `auth` is shown changed since the last check (or since the watch began).
   * A change to items the caller cannot see is no news to it.
   */
  watch(auth: AuthInfo | undefined): () => boolean {
    let seen = this.visibleItems(auth);
    return () => {
      const now = this.visibleItems(auth);
      const changed = now.length !== seen.length || now.some((item, i) => item !== seen[i]);
      seen = now;
      return changed;
    };
  }

  /** Undefined: the caller is shown every item (no scope information, or no item requires any scope). */
  private viewFor(auth: AuthInfo | undefined): ScopedView<T> | undefined {
    if (auth?.scopes === undefined) return undefined;
    const known = this.byAuth.get(auth);
    if (known && known.version === this.source.version) return known.view;
    const view = this.findView(auth);
    this.byAuth.set(auth, { version: this.source.version, view });
    return view;
  }

  private findView(auth: AuthInfo): ScopedView<T> | undefined {
    const relevant = this.relevantScopes();
    if (relevant.size === 0) return undefined;
    const granted = this.policy.granted(auth);
    const key = [...relevant]
      .filter((s) => granted.has(s))
      .sort()
      .join(' ');
    let view = this.views.get(key);
    if (!view) {
      if (this.views.size >= MAX_SCOPE_SETS) this.views.delete(this.views.keys().next().value!);
      view = new ScopedView(this.source, this.visible, new Set(key ? key.split(' ') : []), this.key, this.pageSize, this.privateHints, this.results);
      this.views.set(key, view);
    }
    return view;
  }

  /** Scopes some item requires, recomputed when the source changes. */
  private relevantScopes(): ReadonlySet<string> {
    if (this.relevantFor !== this.source.version) {
      const scopes = new Set<string>();
      for (const item of this.source.list()) for (const s of this.requirementOf(item).all) scopes.add(s);
      this.relevant = scopes;
      this.relevantFor = this.source.version;
      this.views.clear();
    }
    return this.relevant;
  }
}

/** `tools/list` per caller: the tools it may call. */
export class ScopedToolListing extends ScopedListing<CompiledTool> {
  constructor(registry: ToolRegistry, pageSize: number, cache: CacheHints, results: ResultEncoder, policy: ScopePolicy) {
    super(
      registry,
      'tools',
      pageSize,
      cache,
      results,
      policy,
      (tool) => policy.requirement(tool),
      (tool, granted) => policy.lists(tool, granted),
    );
  }
}
