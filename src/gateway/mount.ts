import type { ToolClient } from '../client/client.js';
import type { LogMessage } from '../client/types.js';
import { withLoginHint } from '../client/connect/login.js';
import { ConcurrencyGate } from '../policy/concurrency.js';
import type { ToolServer } from '../server/server.js';
import type { Tool, ToolContext } from '../server/tool.js';
import { ownersOf, syncEntries, type Clash, type EntrySlot } from './entry-sync.js';
import { holdUpstreamHealth } from './health.js';
import { captureAuthorization, forwardingFetch, forwardingSend } from './forward-authorization.js';
import { httpAuthProblem, UPSTREAM_LOADERS, upstreamKind, type LoaderContext } from './loaders.js';
import { gatewayNameProblem, prefixProblem, selected, toolTags } from './names.js';
import { clientSafe, relayCall, type RelayTarget } from './relay-call.js';
import { UpstreamSubscriptions, watchResourceSubscriptions } from './resource-subscriptions.js';
import { uriScheme, type SurfaceSource } from './surfaces.js';
import { syncPrompts, syncResources, type SurfaceRegistry } from './surface-sync.js';
import { ListCache } from './list-cache.js';
import { nodeFetch } from './node-fetch.js';
import { nodeSend } from './node-send.js';
import { taskModeOf, transformFor, transformTool, type UpstreamToolShape } from './transform.js';
import type { HttpUpstream, MountOptions, Upstream, UpstreamEvent, UpstreamHealth } from './types.js';
import { describe, UpstreamLink } from './upstream-link.js';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CONCURRENCY = 16;
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Tools mounted from one upstream at most: a hostile list cannot fill the server's memory with compiled schemas. */
const MAX_TOOLS = 10_000;

/** Two sources give the same name: refused, naming both. */
export class GatewayCollisionError extends Error {
  constructor(readonly clashes: Array<Clash & { upstream: string }>) {
    super(clashes.map((c) => `${c.kind} ${JSON.stringify(c.key)} of upstream "${c.upstream}" clashes with ${c.other} ${c.kind}`).join('; '));
    this.name = 'GatewayCollisionError';
  }
}

/** A mounted upstream: its health, when its first listing is in, and how to take it away. */
export interface MountHandle {
  readonly name: string;
  /** Resolves once the upstream's entries are first registered; rejects with GatewayCollisionError on a clash. Never resolves while the upstream cannot be reached: race it with a timer. */
  readonly ready: Promise<void>;
  /** Resolves once `ready` has settled or the first attempt to reach the upstream failed: what start-up waits for. */
  readonly settled: Promise<void>;
  health(): UpstreamHealth;
  /** Removes its entries and stops the upstream (a stdio upstream's whole process group). */
  close(): Promise<void>;
}

export interface MountContext {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Where `Gateway` keeps the lists of entries with `cacheLists: true` (one file each, by name). */
  cacheDir?: string;
}

/**
 * Mounts an upstream on `server`: its tools, prompts and resources become the server's own entries
 * (named `<name>_<tool>` unless `prefix` says otherwise), so every defence of the server applies to
 * them. Returns at once; the upstream connects in the background and its entries appear when it
 * does (clients hear list_changed). See docs/gateway.md.
 */
export function mount(server: ToolServer, name: string, upstream: Upstream, options: MountOptions = {}, context: MountContext = {}): MountHandle {
  const problem = prefixProblem(name);
  if (problem) throw new TypeError(`upstream name ${JSON.stringify(name).slice(0, 80)}: ${problem}`);
  const prefix = options.prefix === undefined ? name : options.prefix;
  if (prefix !== false && prefixProblem(prefix)) throw new TypeError(`upstream "${name}": prefix ${prefixProblem(prefix)}`);
  if (options.roots !== undefined && !validRoots(options.roots)) throw new TypeError(`upstream "${name}": roots must be a list of { uri: "file://…", name? }`);
  const owners = ownersOf(server);
  if (owners.has(`mount:${name}`)) throw new GatewayCollisionError([{ kind: 'tool', key: name, other: `upstream "${name}"`, upstream: name }]);
  owners.set(`mount:${name}`, name);
  const m = new UpstreamMount(server, name, prefix, upstream, options, context);
  m.start();
  // Its health is served by the mount itself, so a program that mounts needs nothing more for doctor and the console.
  if (options.health !== false) m.stopHealth = holdUpstreamHealth(server, name, () => m.health(), options.health === true ? {} : (options.health ?? {}));
  return m;
}

class UpstreamMount implements MountHandle, RelayTarget, SurfaceSource {
  readonly ready: Promise<void>;
  readonly settled: Promise<void>;
  private settle_!: () => void;
  readonly gate: ConcurrencyGate;
  readonly timeoutMs: number;
  readonly inFlight = new Set<ToolContext>();
  private readonly link?: UpstreamLink;
  private readonly scheme?: string;
  private readonly registered = {
    tool: new Map<string, string>(),
    prompt: new Map<string, string>(),
    resource: new Map<string, string>(),
    template: new Map<string, string>(),
  };
  private readonly syncing = new Map<string, { again: boolean }>();
  /** Where its lists are kept across restarts (MountOptions.listCache). */
  private readonly cache?: ListCache;
  private readonly surfaces: SurfaceRegistry;
  private firstSync?: { resolve: () => void; reject: (err: Error) => void };
  private readonly subscriptions = new UpstreamSubscriptions((message) => this.event('log', message));
  private unwatch?: () => void;
  private staticError?: string;
  private closed = false;
  /** Takes this upstream out of the health resource (the last one out removes it). */
  stopHealth?: () => void;

  constructor(
    private readonly server: ToolServer,
    readonly name: string,
    readonly prefix: string | false,
    private readonly upstream: Upstream,
    private readonly options: MountOptions,
    private readonly context: MountContext,
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.surfaces = { server, registered: this.registered, refused: (key, why) => this.event('refused', `${key}: ${why}`) };
    this.gate = new ConcurrencyGate(options.maxConcurrency ?? DEFAULT_CONCURRENCY, 256);
    this.scheme = uriScheme(prefix);
    this.ready = new Promise((resolve, reject) => (this.firstSync = { resolve, reject }));
    this.ready.catch(() => {}); // a clash nobody awaits is still logged (event 'collision'), not an unhandled rejection
    this.settled = new Promise((resolve) => (this.settle_ = resolve));
    this.ready.then(this.settle_, this.settle_);
    const loader = UPSTREAM_LOADERS[upstreamKind(upstream)];
    if (!loader) throw new TypeError(`upstream "${name}": ${upstreamKind(upstream)} upstreams are not available in this build`);
    if (loader.kind === 'client') {
      const forward = options.forwardAuthorization === true || (upstream as { forwardAuthorization?: boolean }).forwardAuthorization === true;
      const authProblem = upstreamKind(upstream) === 'http' ? httpAuthProblem(upstream as HttpUpstream, forward) : undefined;
      if (authProblem) throw new TypeError(`upstream "${name}": ${authProblem}`);
      if (forward) captureAuthorization(server);
      const loaderContext: LoaderContext = {
        cwd: context.cwd ?? process.cwd(),
        env: context.env ?? process.env,
        warn: (message) => this.event('log', message),
        maxMessageBytes: MAX_MESSAGE_BYTES,
        // node:http, not the global fetch: a relayed call costs one request upstream (node-send.ts; node-fetch.ts where OAuth needs a fetch).
        fetch: forward ? forwardingFetch(nodeFetch) : nodeFetch,
        send: forward ? forwardingSend(nodeSend) : nodeSend,
      };
      this.unwatch = watchResourceSubscriptions(server, (uri) => this.subscribeUpstream(uri));
      if (options.listCache) this.cache = new ListCache(options.listCache, (message) => this.event('log', message));
      this.link = new UpstreamLink({
        name,
        open: () => loader.open(upstream, loaderContext),
        connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
        timeoutMs: this.timeoutMs,
        maxMessageBytes: MAX_MESSAGE_BYTES,
        warn: (message) => this.event('log', message),
        onListChanged: (what) => this.scheduleSync(what),
        onResourceUpdated: (uri) => server.resources.updated(this.mapUri(uri)),
        onLog: (message) => this.relayLog(message),
        roots: options.roots ?? [],
        ...((upstream as HttpUpstream).auth === 'login' ? { explain: (err: unknown) => withLoginHint(err, { url: (upstream as HttpUpstream).url }) } : {}),
        onState: (state, detail) => {
          if (state === 'up') {
            this.event('connected', 'connected');
            // A new connection knows none of the old one's subscriptions.
            if (this.link?.client) this.subscriptions.renew(this.link.client);
            for (const kind of ['tools', 'prompts', 'resources'] as const) this.scheduleSync(kind);
          } else {
            this.event('disconnected', detail ?? 'disconnected');
            this.settle_();
          }
        },
      });
    }
  }

  start(): void {
    if (this.link) {
      this.loadCachedLists();
      this.link.start();
    } else void this.loadStaticTools();
  }

  /** The last listing from the cache, served until the upstream answers (a live listing replaces every entry). */
  private loadCachedLists(): void {
    const cached = this.cache?.read();
    if (!cached) return;
    const marker = 'cached:';
    try {
      if (cached.tools) this.applyTools(cached.tools, (shape) => this.callRelay(shape), marker);
      if (cached.prompts && this.options.prompts !== false) this.settle(syncPrompts(this, this.surfaces, cached.prompts, marker));
      if (this.options.resources !== false) this.settle(syncResources(this, this.surfaces, cached.resources ?? [], cached.templates ?? [], marker));
    } catch (err) {
      this.event('log', `its cached lists were not used: ${describe(err)}`);
      return;
    }
    if (cached.tools) this.firstSync?.resolve();
  }

  client(): ToolClient | undefined {
    return this.link?.client;
  }

  downBecause(): string | undefined {
    return this.link?.lastError ?? this.staticError;
  }

  lost(client: ToolClient, why: string): void {
    this.link?.lost(client, why);
  }

  mapUri(uri: string): string {
    return this.scheme ? `${this.scheme}+${uri}` : uri;
  }

  unmapUri(uri: string): string {
    return this.scheme && uri.startsWith(`${this.scheme}+`) ? uri.slice(this.scheme.length + 1) : uri;
  }

  health(): UpstreamHealth {
    const state = this.closed ? 'closed' : this.link ? this.link.state : this.staticError ? 'down' : 'up';
    const lastError = this.downBecause();
    const { tool, prompt, resource, template } = this.registered;
    const retryAt = state === 'down' ? this.link?.retryAt : undefined;
    return {
      name: this.name,
      kind: upstreamKind(this.upstream),
      state,
      tools: tool.size,
      prompts: prompt.size,
      resources: resource.size + template.size,
      restarts: this.link?.restarts ?? 0,
      // Cleaned as a client sees it in a call's error (health is read by the console and any client).
      ...(lastError ? { lastError: clientSafe(lastError) } : {}),
      ...(retryAt !== undefined ? { retryInMs: Math.max(0, retryAt - Date.now()) } : {}),
    };
  }

  /** A client subscribed to `uri`: if it is one of this upstream's resources, the upstream is asked to tell of its changes (once). */
  private subscribeUpstream(uri: string): void {
    if (this.scheme && uri.startsWith(`${this.scheme}+`)) this.subscriptions.add(this.link?.client, this.unmapUri(uri));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopHealth?.();
    this.unwatch?.();
    await this.subscriptions.release(this.link?.client);
    await this.link?.close();
    const s = this.server;
    for (const key of this.registered.tool.keys()) s.tools.remove(key);
    for (const key of this.registered.prompt.keys()) s.prompts.remove(key);
    for (const key of this.registered.resource.keys()) s.resources.remove(key);
    for (const key of this.registered.template.keys()) s.resources.removeTemplate(key);
    const owners = ownersOf(s);
    for (const [key, owner] of [...owners]) if (owner === `upstream "${this.name}"` || key === `mount:${this.name}`) owners.delete(key);
  }

  /** Lists one kind again; a change announced while a listing runs is listed once more after it (a flood costs two listings). */
  private scheduleSync(kind: 'tools' | 'prompts' | 'resources'): void {
    const running = this.syncing.get(kind);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.syncing.set(kind, state);
    void (async () => {
      let listed = false;
      do {
        state.again = false;
        listed = await this.syncOnce(kind).catch((err: unknown) => (this.event('log', `listing ${kind} failed: ${describe(err)}`), false));
      } while (state.again && !this.closed);
      this.syncing.delete(kind);
      // Ready once the tools are in (prompts and resources follow): what start-up waits for.
      if (kind === 'tools' && listed) this.firstSync?.resolve();
    })();
  }

  /** False when there is no connection to list on (a change announced before it is up: the listing after connecting covers it). */
  private async syncOnce(kind: 'tools' | 'prompts' | 'resources'): Promise<boolean> {
    const client = this.link?.client;
    if (!client || this.closed) return false;
    const caps = client.capabilities ?? {};
    if (kind === 'tools' && caps.tools !== undefined) {
      const tools = await client.listTools({ refresh: true });
      this.cache?.update('tools', tools as UpstreamToolShape[]);
      this.applyTools(tools, (shape) => this.callRelay(shape));
    }
    if (kind === 'prompts' && caps.prompts !== undefined && this.options.prompts !== false) {
      const prompts = await client.listPrompts();
      this.cache?.update('prompts', prompts);
      this.settle(syncPrompts(this, this.surfaces, prompts));
    }
    if (kind === 'resources' && caps.resources !== undefined && this.options.resources !== false) {
      const [resources, templates] = [await client.listResources(), await client.listResourceTemplates()];
      this.cache?.update('resources', resources);
      this.cache?.update('templates', templates);
      this.settle(syncResources(this, this.surfaces, resources, templates));
    }
    return true;
  }

  private callRelay(shape: UpstreamToolShape) {
    const mode = taskModeOf(shape, transformFor(this.options, shape.name));
    const asTask = mode !== undefined && mode !== 'never';
    return (args: Record<string, unknown>, ctx: ToolContext) => relayCall(this, shape.name, args, ctx, asTask);
  }

  private applyTools(listed: readonly UpstreamToolShape[], call: (shape: UpstreamToolShape) => Tool['handler'], marker = ''): void {
    const desired = new Map<string, { entry: Tool; fingerprint: string }>();
    if (listed.length > MAX_TOOLS) this.event('refused', `it lists ${listed.length} tools; the first ${MAX_TOOLS} are mounted`);
    for (const shape of listed.slice(0, MAX_TOOLS)) {
      const t = transformFor(this.options, shape.name);
      if (t.hidden || !selected(shape.name, toolTags(shape), this.options)) continue;
      const tool = transformTool(shape, this.prefix, this.options, call(shape));
      tool.upstream = this.name;
      const problem = gatewayNameProblem(tool.name);
      if (problem || desired.has(tool.name)) {
        this.event('refused', `tool ${JSON.stringify(tool.name.slice(0, 140))}: ${problem ?? 'two upstream tools take this name'}`);
        continue;
      }
      desired.set(tool.name, { entry: tool, fingerprint: marker + fingerprintOf(shape) });
    }
    const s = this.server;
    const slot: EntrySlot<Tool> = { kind: 'tool', has: (k) => s.tools.has(k), add: (t) => s.tools.add(t), remove: (k) => s.tools.remove(k) };
    this.settle(syncEntries(s, this.name, slot, desired, this.registered.tool, (key, why) => this.event('refused', `tool ${key}: ${why}`)));
  }

  /** Clashes are refused entries, logged naming both sources; found in the first listing, they fail `ready`. */
  private settle(clashes: Clash[]): void {
    if (!clashes.length) return;
    const error = new GatewayCollisionError(clashes.map((c) => ({ ...c, upstream: this.name })));
    this.event('collision', error.message);
    this.firstSync?.reject(error);
  }

  private async loadStaticTools(): Promise<void> {
    const loader = UPSTREAM_LOADERS[upstreamKind(this.upstream)];
    if (loader?.kind !== 'tools') return;
    try {
      const { tools, notes } = await loader.load(this.upstream, { cwd: this.context.cwd ?? process.cwd(), env: this.context.env ?? process.env });
      for (const note of notes) this.event('log', note);
      const byName = new Map(tools.map((t) => [t.name, t]));
      this.applyTools(
        tools.map((t) => ({
          ...t,
          inputSchema: t.inputSchema as Record<string, unknown>,
          outputSchema: t.outputSchema as Record<string, unknown> | undefined,
        })),
        (shape) => (args: Record<string, unknown>, ctx: ToolContext) => byName.get(shape.name)!.handler(args, ctx),
      );
      this.firstSync?.resolve();
    } catch (err) {
      this.staticError = describe(err);
      this.event('disconnected', this.staticError);
      this.settle_();
    }
  }

  /** An upstream's log message goes to the call it can belong to (the only one in flight), and to the server log. */
  private relayLog(message: LogMessage): void {
    if (this.inFlight.size === 1) {
      const [ctx] = this.inFlight;
      ctx.log(message.level, message.data, message.logger ?? this.name);
    }
    this.server.logger.debug({ upstream: this.name, level: message.level, data: message.data }, 'upstream log message');
  }

  private event(kind: UpstreamEvent['kind'], message: string): void {
    const event: UpstreamEvent = { upstream: this.name, kind, message };
    const level = kind === 'collision' || kind === 'refused' ? 'warn' : kind === 'disconnected' ? 'warn' : 'info';
    this.server.logger[level]({ upstream: this.name, event: kind }, message);
    try {
      this.options.onEvent?.(event);
    } catch {
      // an observer's failure is not the upstream's
    }
  }
}

/** What decides whether a listed entry changed (its whole definition, as listed). */
function fingerprintOf(entry: unknown): string {
  return JSON.stringify(entry);
}

function validRoots(roots: unknown): boolean {
  return (
    Array.isArray(roots) &&
    roots.every((r) => typeof r?.uri === 'string' && r.uri.startsWith('file://') && (r.name === undefined || typeof r.name === 'string'))
  );
}
