import { GATEWAY_HEALTH_URI } from '../client/doctor/upstreams.js';
import type { ToolServer } from '../server/server.js';
import type { UpstreamHealth } from './types.js';

export { GATEWAY_HEALTH_URI };

export interface HealthResourceOptions {
  /** Scopes a caller must hold to read it (as any resource's `scopes`); default none. */
  scopes?: string[];
  /** Scopes a caller must hold to know it exists; default none. */
  visibilityScopes?: string[];
}

/**
 * Serves the upstreams' health as a read-only JSON resource (`toolwright://gateway/upstreams`):
 * what `toolwright doctor` and the console's Upstreams screen read from a running gateway,
 * over whatever transport reaches it. Read afresh each time (`ttlMs: 0`); meant for people
 * (`audience: ["user"]`). Returns the undo.
 */
export function serveUpstreamHealth(server: ToolServer, health: () => UpstreamHealth[], options: HealthResourceOptions = {}): () => void {
  server.resources.add({
    uri: GATEWAY_HEALTH_URI,
    name: 'gateway upstreams',
    title: 'Gateway upstreams',
    description: 'The health of each upstream of this gateway: connected or not, its entries, its last error and when it is retried.',
    mimeType: 'application/json',
    annotations: { audience: ['user'] },
    ttlMs: 0,
    cacheScope: 'private',
    ...(options.scopes ? { scopes: options.scopes } : {}),
    ...(options.visibilityScopes ? { visibilityScopes: options.visibilityScopes } : {}),
    read: () => JSON.stringify({ upstreams: health() }),
  });
  return () => server.resources.remove(GATEWAY_HEALTH_URI);
}
