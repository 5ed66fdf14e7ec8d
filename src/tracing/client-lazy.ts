import type { OperationFacts } from './attributes.js';
import { lazyModule, providerMaybeRegistered } from './lazy.js';

// client.ts and the OpenTelemetry API behind it, imported when a provider is first seen (lazy.ts).
const clientTracing = lazyModule(() => import('./client.js'));

/**
 * client.ts's traceClientRequest without loading the API while nothing could record: `send(meta)`
 * at once. The first request after a provider appears waits for the import (its deadline and
 * signal already run: client/deadline.ts holds an abort that happens meanwhile).
 */
export function traceClientRequest<R>(
  facts: () => OperationFacts,
  meta: Record<string, unknown> | undefined,
  send: (meta: Record<string, unknown> | undefined) => Promise<R>,
): Promise<R> {
  if (!providerMaybeRegistered()) return send(meta);
  const tracing = clientTracing.get();
  if (tracing instanceof Promise) return tracing.then((t) => t.traceClientRequest(facts, meta, send));
  return tracing.traceClientRequest(facts, meta, send);
}
