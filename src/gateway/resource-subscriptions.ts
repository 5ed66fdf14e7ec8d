import type { ToolClient } from '../client/client.js';
import type { ToolServer } from '../server/server.js';
import { describe } from './upstream-link.js';

type Watcher = (uri: string) => void;
const watchers = new WeakMap<ToolServer, Set<Watcher>>();

/**
 * Tells `watcher` each resource URI a client of `server` subscribes to: legacy `resources/subscribe`
 * and the modern `subscriptions/listen` filter's `resourceSubscriptions`, seen by public middleware
 * (installed once per server, before the server's own handling, which still decides what is allowed).
 * A mount subscribes upstream to those that are its own. Returns the undo.
 */
export function watchResourceSubscriptions(server: ToolServer, watcher: Watcher): () => void {
  let set = watchers.get(server);
  if (!set) {
    const all = new Set<Watcher>();
    watchers.set(server, (set = all));
    const tell = (uri: unknown) => {
      if (typeof uri === 'string') for (const w of all) w(uri);
    };
    server.use('resources/subscribe', (ctx, next) => {
      tell(ctx.params.uri);
      return next();
    });
    server.use('subscriptions/listen', (ctx, next) => {
      const uris = (ctx.params.notifications as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions;
      if (Array.isArray(uris)) for (const uri of uris.slice(0, 1024)) tell(uri);
      return next();
    });
  }
  set.add(watcher);
  return () => set.delete(watcher);
}

/** Upstream subscriptions one mount holds at most: a client cannot make it hold more. */
const MAX_SUBSCRIPTIONS = 1024;
/** How long unmounting waits for the upstream to take its subscriptions back (a dead one is not waited for). */
const UNSUBSCRIBE_WAIT_MS = 1_000;

/**
 * The resource subscriptions one mount holds upstream, by the upstream's URI: taken once per
 * URI, taken again on a new connection (it knows none of the old one's), and given back when the
 * upstream is unmounted, so an upstream that outlives the gateway's session (an HTTP server)
 * does not keep telling of changes nobody hears.
 */
export class UpstreamSubscriptions {
  private readonly uris = new Set<string>();

  constructor(private readonly log: (message: string) => void) {}

  /** A client subscribed to `upstreamUri` through the gateway: the upstream is asked once. */
  add(client: ToolClient | undefined, upstreamUri: string): void {
    if (this.uris.has(upstreamUri) || this.uris.size >= MAX_SUBSCRIPTIONS) return;
    this.uris.add(upstreamUri);
    if (client) this.subscribe(client, upstreamUri);
  }

  /** A new connection: every subscription taken again. */
  renew(client: ToolClient): void {
    for (const uri of this.uris) this.subscribe(client, uri);
  }

  /** Unmounting: every subscription given back, waiting at most UNSUBSCRIBE_WAIT_MS. */
  async release(client: ToolClient | undefined): Promise<void> {
    const uris = [...this.uris];
    this.uris.clear();
    if (!client || !uris.length || !canSubscribe(client)) return;
    const done = Promise.allSettled(uris.map((uri) => client.unsubscribeResource(uri, { signal: AbortSignal.timeout(UNSUBSCRIBE_WAIT_MS) })));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, UNSUBSCRIBE_WAIT_MS)))]);
    clearTimeout(timer);
  }

  private subscribe(client: ToolClient, uri: string): void {
    if (!canSubscribe(client)) return;
    client.subscribeResource(uri).catch((err: unknown) => this.log(`subscribing to a resource failed: ${describe(err)}`));
  }
}

function canSubscribe(client: ToolClient): boolean {
  return Boolean((client.capabilities?.resources as { subscribe?: unknown } | undefined)?.subscribe);
}
