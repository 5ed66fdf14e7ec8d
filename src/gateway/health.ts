import { GATEWAY_HEALTH_URI } from '../client/doctor/upstreams.js';
import type { Resource } from '../server/primitives/resources/resource.js';
import type { ToolServer } from '../server/server.js';
import type { HealthResourceOptions, UpstreamHealth } from './types.js';

export { GATEWAY_HEALTH_URI };
export type { HealthResourceOptions };

/** Who keeps the resource served on one server, and the health each one gives. */
interface HealthHolder {
  health: () => UpstreamHealth[];
  options: HealthResourceOptions;
}

/** Per server: the resource is there while any holder is (every `mount` and `serveUpstreamHealth` holds it). */
const holders = new WeakMap<ToolServer, Set<HealthHolder>>();
/** The scopes the registered resource carries, per server: re-registered only when a holder changes them. */
const registered = new WeakMap<ToolServer, string>();

/**
 * Serves the upstreams' health as a read-only JSON resource (`toolwright://gateway/upstreams`):
 * what `toolwright doctor` and the console's Upstreams screen read from a running gateway,
 * over whatever transport reaches it. Read afresh each time (`ttlMs: 0`); meant for people
 * (`audience: ["user"]`). Returns the undo.
 *
 * One resource per server, however many serve it: `mount` serves each upstream's health this way
 * (MountOptions.health), and a call here adds `health` to what the resource lists (an upstream
 * listed twice, here and by its mount, is shown once: names are unique on a server). The resource
 * goes when its last holder undoes; its scopes are every holder's together (the strictest wins).
 */
export function serveUpstreamHealth(server: ToolServer, health: () => UpstreamHealth[], options: HealthResourceOptions = {}): () => void {
  const holder: HealthHolder = { health, options };
  let set = holders.get(server);
  if (!set) holders.set(server, (set = new Set()));
  set.add(holder);
  try {
    register(server, set);
  } catch (err) {
    set.delete(holder);
    throw err;
  }
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    set.delete(holder);
    if (set.size > 0) return register(server, set);
    holders.delete(server);
    registered.delete(server);
    server.resources.remove(GATEWAY_HEALTH_URI);
  };
}

/**
 * `mount`'s hold on the resource: as serveUpstreamHealth, except that a resource of the server's
 * own at that URI is left alone (logged), never a reason to refuse the mount. Undefined then.
 */
export function holdUpstreamHealth(
  server: ToolServer,
  upstream: string,
  health: () => UpstreamHealth,
  options: HealthResourceOptions,
): (() => void) | undefined {
  try {
    return serveUpstreamHealth(server, () => [health()], options);
  } catch (err) {
    server.logger.warn({ upstream, event: 'refused' }, `its health is not served: ${(err as Error).message}`);
    return undefined;
  }
}

/** Registers the resource, or registers it again when the holders' scopes changed (one list change). */
function register(server: ToolServer, set: Set<HealthHolder>): void {
  const scopes = union([...set].map((h) => h.options.scopes));
  const visibilityScopes = union([...set].map((h) => h.options.visibilityScopes));
  const key = JSON.stringify([scopes, visibilityScopes]);
  const previous = registered.get(server);
  if (previous === key && server.resources.get(GATEWAY_HEALTH_URI)) return;
  const resource = healthResource(() => listed(set), scopes, visibilityScopes);
  // Ours when we registered it; anything else at that URI is refused by add, naming it.
  if (previous !== undefined && server.resources.get(GATEWAY_HEALTH_URI))
    server.resources.replace({ uris: [GATEWAY_HEALTH_URI], templates: [] }, { resources: [resource], templates: [] });
  else server.resources.add(resource);
  registered.set(server, key);
}

/** Every holder's upstreams, in the order they began serving; each name once. */
function listed(set: Set<HealthHolder>): UpstreamHealth[] {
  const byName = new Map<string, UpstreamHealth>();
  for (const holder of set) for (const upstream of holder.health()) if (!byName.has(upstream.name)) byName.set(upstream.name, upstream);
  return [...byName.values()];
}

function union(lists: Array<string[] | undefined>): string[] | undefined {
  const all = new Set(lists.flatMap((l) => l ?? []));
  return all.size ? [...all].sort() : undefined;
}

function healthResource(health: () => UpstreamHealth[], scopes: string[] | undefined, visibilityScopes: string[] | undefined): Resource {
  return {
    uri: GATEWAY_HEALTH_URI,
    name: 'gateway upstreams',
    title: 'Gateway upstreams',
    description: 'The health of each upstream of this gateway: connected or not, its entries, its last error and when it is retried.',
    mimeType: 'application/json',
    annotations: { audience: ['user'] },
    ttlMs: 0,
    cacheScope: 'private',
    ...(scopes ? { scopes } : {}),
    ...(visibilityScopes ? { visibilityScopes } : {}),
    read: () => JSON.stringify({ upstreams: health() }),
  };
}
