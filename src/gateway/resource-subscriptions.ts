import type { ToolServer } from '../server/server.js';

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
