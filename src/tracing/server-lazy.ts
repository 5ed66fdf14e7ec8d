import { lazyModule, providerMaybeRegistered } from './lazy.js';

/**
 * The server's tracing (the middleware, its checks, the upstream tag) and the OpenTelemetry API
 * behind it, imported when a provider is first seen (lazy.ts). One instance for the process, so
 * that once the route has loaded it, everything else reads it without waiting.
 */
export const serverTracing = lazyModule(() => import('./server-route.js'));
export type ServerTracing = Awaited<ReturnType<typeof serverTracing.get>>;

/**
 * Names the upstream a gateway relays to on the request's SERVER span. The span exists only once
 * the traced route has loaded the tracing modules, so while they are not loaded there is nothing
 * to tag (and nothing is imported for it).
 */
export function tagUpstream(upstream: string): void {
  if (!providerMaybeRegistered()) return;
  const loaded = serverTracing.get();
  if (!(loaded instanceof Promise)) loaded.tagUpstream(upstream);
}
