import { encodeNotification } from '../jsonrpc/encode.js';
import type { RequestId } from '../jsonrpc/types.js';
import { META } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import type { Peer } from './peer.js';

/** What a `subscriptions/listen` stream receives (subscriptions.mdx "Notification Filter"). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
}

interface Subscription {
  id: RequestId;
  filter: SubscriptionFilter;
  send(json: string): void;
  /** Whether what this subscriber is shown changed (callers shown a filtered list); absent: every change is news. */
  changed?: () => boolean;
}

/**
 * Delivers list changes: to modern `subscriptions/listen` streams that asked
 * for them (each message tagged with its subscription id), and to legacy
 * sessions as `notifications/tools/list_changed` on their own channel.
 * Changes made in one tick coalesce into one notification.
 */
export class SubscriptionHub {
  private readonly subscriptions = new Set<Subscription>();
  private readonly legacyPeers = new Map<Peer, (() => boolean) | undefined>();
  private toolsChangePending = false;

  /** Registers a stream and sends its acknowledgment first; returns the unsubscribe. */
  listen(id: RequestId, requested: Record<string, unknown>, send: (json: string) => void, changed?: () => boolean): () => void {
    // Only what we support is acknowledged (and ever sent).
    const filter: SubscriptionFilter = requested.toolsListChanged === true ? { toolsListChanged: true } : {};
    const subscription: Subscription = { id, filter, send, changed };
    send(encodeNotification('notifications/subscriptions/acknowledged', { _meta: { [META.subscriptionId]: id }, notifications: filter }));
    this.subscriptions.add(subscription);
    return () => this.subscriptions.delete(subscription);
  }

  /** A legacy peer hears about list changes (those it can see, with `changed`) until it closes. */
  addLegacyPeer(peer: Peer, changed?: () => boolean): void {
    this.legacyPeers.set(peer, changed);
    peer.onClose(() => this.legacyPeers.delete(peer));
  }

  toolsChanged(): void {
    if (this.toolsChangePending) return;
    this.toolsChangePending = true;
    setImmediate(() => {
      this.toolsChangePending = false;
      for (const s of this.subscriptions) {
        if (s.filter.toolsListChanged && (s.changed?.() ?? true)) s.send(encodeNotification(Method.toolsListChanged, { _meta: { [META.subscriptionId]: s.id } }));
      }
      const legacy = encodeNotification(Method.toolsListChanged, undefined);
      for (const [peer, changed] of this.legacyPeers) if (changed?.() ?? true) peer.push?.(legacy);
    });
  }
}
