import { encodeNotification } from '../jsonrpc/encode.js';
import type { RequestId } from '../jsonrpc/types.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import { META } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import type { Peer } from './peer.js';
import type { BusEvent, EventBus } from '../state/bus.js';

/** What a `subscriptions/listen` stream receives (subscriptions.mdx "Notification Filter"). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/** Resource URIs one stream or legacy session may watch, and how long each may be: state a client holds on the server is bounded. */
export const MAX_WATCHED_RESOURCES = 256;
/**
 * Members another module adds to a `subscriptions/listen` acknowledgment (the
 * tasks extension's `taskIds`), handed on the forwarded request's params under
 * this symbol: never serialized, never sent by a client.
 */
export const ALSO_ACKNOWLEDGED = Symbol('toolwright.alsoAcknowledged');

export const MAX_WATCHED_URI_CHARS = 2048;

/** The list-change kinds, by their filter field and notification method. */
const LIST_KINDS = {
  tools: { field: 'toolsListChanged', method: Method.toolsListChanged },
  prompts: { field: 'promptsListChanged', method: Method.promptsListChanged },
  resources: { field: 'resourcesListChanged', method: Method.resourcesListChanged },
} as const;
export type ListKind = keyof typeof LIST_KINDS;

/** Says whether what one subscriber is shown changed since it last asked (callers shown a filtered list). */
type ChangeCheck = () => boolean;

interface Subscription {
  id: RequestId;
  filter: SubscriptionFilter;
  uris?: ReadonlySet<string>;
  /** Who listens: a resource update reaches it only while it may read the resource. */
  auth?: AuthInfo;
  send(json: string): void;
  /** Absent: every tools change is news to it. */
  toolsChanged?: ChangeCheck;
}

interface LegacyListener {
  toolsChanged?: ChangeCheck;
  /** URIs this session subscribed to with resources/subscribe. */
  uris?: Set<string>;
}

/**
 * Delivers list changes and resource updates: to modern `subscriptions/listen`
 * streams that asked for them (each message tagged with its subscription id),
 * and to legacy sessions on their own channel (list changes to every session,
 * resource updates to those that subscribed to the URI). Changes made in one
 * tick coalesce into one notification per kind (and per URI).
 */
export class SubscriptionHub {
  private readonly subscriptions = new Set<Subscription>();
  private readonly legacyPeers = new Map<Peer, LegacyListener>();
  /** Kinds to announce this tick; true: it changed on another instance, news to every listener that asked. */
  private readonly pendingLists = new Map<ListKind, boolean>();
  private readonly pendingUris = new Set<string>();
  private flushScheduled = false;
  /** What some primitive can deliver: only that is acknowledged (and ever sent). */
  private readonly offered = new Set<ListKind | 'resourceUpdates'>();
  private toolWatch?: (auth: AuthInfo | undefined) => ChangeCheck | undefined;
  private mayRead: (uri: string, auth: AuthInfo | undefined) => boolean = () => true;
  private bus?: EventBus;
  /** Events this hub published: the bus hands them back, and they were already delivered here. */
  private readonly own = new WeakSet<BusEvent>();

  /**
   * Shares changes with the other instances on `bus` (docs/deployment.md): what changes here is
   * published; what another instance publishes reaches this hub's streams and sessions. Returns the stop.
   */
  useBus(bus: EventBus, onError: (err: unknown) => void): () => void {
    this.bus = bus;
    const stop = bus.subscribe((event) => {
      if (this.own.has(event)) return;
      if (event.type === 'list-changed' && event.kind in LIST_KINDS) this.queueList(event.kind, true);
      else if (event.type === 'resource-updated' && typeof event.uri === 'string') this.queueUpdate(event.uri);
    });
    this.onBusError = onError;
    return () => {
      stop();
      if (this.bus === bus) this.bus = undefined;
    };
  }

  private onBusError: (err: unknown) => void = () => undefined;

  private share(event: BusEvent): void {
    if (!this.bus) return;
    this.own.add(event);
    this.bus.publish(event).catch(this.onBusError);
  }

  /** A primitive says it will report changes of this kind (its list, or its resources' content). */
  offer(kind: ListKind | 'resourceUpdates'): void {
    this.offered.add(kind);
  }

  /** How to tell, for one caller, whether the tools it is shown changed (set by the tools primitive). */
  watchTools(watch: (auth: AuthInfo | undefined) => ChangeCheck | undefined): void {
    this.toolWatch = watch;
  }

  /**
   * Whether a caller may read a resource (set by the resources primitive): updates of one it may
   * not are never sent to it, though its subscription is acknowledged like any other URI's, so
   * the acknowledgment tells nothing of what exists.
   */
  watchResources(mayRead: (uri: string, auth: AuthInfo | undefined) => boolean): void {
    this.mayRead = mayRead;
  }

  /**
   * Registers a stream and sends its acknowledgment first; returns the
   * unsubscribe. Only what we support is acknowledged (and ever sent);
   * `requested` must already be an object (the caller checks the params).
   */
  listen(
    id: RequestId,
    requested: Record<string, unknown>,
    send: (json: string) => void,
    auth?: AuthInfo,
    alsoAcknowledged?: Record<string, unknown>,
  ): () => void {
    const filter = acceptedFilter(requested, this.offered);
    const subscription: Subscription = {
      id,
      filter,
      send,
      ...(filter.resourceSubscriptions ? { uris: new Set(filter.resourceSubscriptions), auth } : {}),
      ...(filter.toolsListChanged ? { toolsChanged: this.toolWatch?.(auth) } : {}),
    };
    // `alsoAcknowledged`: what another module agreed to on this stream (the tasks extension's taskIds).
    const acknowledged = alsoAcknowledged ? { ...filter, ...alsoAcknowledged } : filter;
    send(encodeNotification('notifications/subscriptions/acknowledged', { _meta: { [META.subscriptionId]: id }, notifications: acknowledged }));
    this.subscriptions.add(subscription);
    return () => this.subscriptions.delete(subscription);
  }

  /** @internal A legacy peer hears about list changes (tools: those it can see) until it closes. */
  addLegacyPeer(peer: Peer, auth?: AuthInfo): void {
    this.legacyPeers.set(peer, { toolsChanged: this.toolWatch?.(auth) });
    peer.onClose(() => this.legacyPeers.delete(peer));
  }

  /** @internal Legacy `resources/subscribe`: false when the session already watches as many URIs as it may. */
  subscribeLegacy(peer: Peer, uri: string): boolean {
    const listener = this.legacyPeers.get(peer);
    if (!listener) return false;
    const uris = (listener.uris ??= new Set());
    if (!uris.has(uri) && uris.size >= MAX_WATCHED_RESOURCES) return false;
    uris.add(uri);
    return true;
  }

  /** @internal Legacy `resources/unsubscribe`. */
  unsubscribeLegacy(peer: Peer, uri: string): void {
    this.legacyPeers.get(peer)?.uris?.delete(uri);
  }

  toolsChanged(): void {
    this.listChanged('tools');
  }

  /** The list of `kind` changed: subscribers that asked are told once this tick is over. */
  listChanged(kind: ListKind): void {
    this.queueList(kind, false);
    this.share({ type: 'list-changed', kind });
  }

  /** A resource's content changed (resources.mdx "Subscriptions"). */
  resourceUpdated(uri: string): void {
    this.queueUpdate(uri);
    this.share({ type: 'resource-updated', uri });
  }

  private queueList(kind: ListKind, remote: boolean): void {
    this.pendingLists.set(kind, remote || (this.pendingLists.get(kind) ?? false));
    this.scheduleFlush();
  }

  private queueUpdate(uri: string): void {
    this.pendingUris.add(uri);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      for (const [kind, remote] of this.pendingLists) this.flushList(kind, remote);
      this.pendingLists.clear();
      for (const uri of this.pendingUris) this.flushUpdate(uri);
      this.pendingUris.clear();
    });
  }

  /**
   * `remote`: the list changed on another instance. This one's registry did not change, so what
   * a caller is shown here says nothing: every listener that asked is told (and refetches).
   */
  private flushList(kind: ListKind, remote: boolean): void {
    const { field, method } = LIST_KINDS[kind];
    const tools = kind === 'tools';
    const news = (check: ChangeCheck | undefined) => !tools || (check?.() ?? true) || remote;
    for (const s of this.subscriptions) {
      if (s.filter[field] && news(s.toolsChanged)) s.send(encodeNotification(method, { _meta: { [META.subscriptionId]: s.id } }));
    }
    const legacy = encodeNotification(method, undefined);
    for (const [peer, listener] of this.legacyPeers) if (news(listener.toolsChanged)) peer.push?.(legacy);
  }

  private flushUpdate(uri: string): void {
    for (const s of this.subscriptions) {
      if (s.uris?.has(uri) && this.mayRead(uri, s.auth)) s.send(encodeNotification(Method.resourcesUpdated, { _meta: { [META.subscriptionId]: s.id }, uri }));
    }
    let legacy: string | undefined;
    for (const [peer, listener] of this.legacyPeers) {
      if (listener.uris?.has(uri)) peer.push?.((legacy ??= encodeNotification(Method.resourcesUpdated, { uri })));
    }
  }
}

/** The part of a requested filter we honor: the offered kinds set to true, and valid URIs up to the cap. */
function acceptedFilter(requested: Record<string, unknown>, offered: ReadonlySet<ListKind | 'resourceUpdates'>): SubscriptionFilter {
  const filter: SubscriptionFilter = {};
  for (const [kind, { field }] of Object.entries(LIST_KINDS)) if (requested[field] === true && offered.has(kind as ListKind)) filter[field] = true;
  const uris = requested.resourceSubscriptions;
  if (Array.isArray(uris) && offered.has('resourceUpdates')) {
    const accepted = [...new Set(uris.filter((u): u is string => typeof u === 'string' && u.length > 0 && u.length <= MAX_WATCHED_URI_CHARS))].slice(
      0,
      MAX_WATCHED_RESOURCES,
    );
    if (accepted.length) filter.resourceSubscriptions = accepted;
  }
  return filter;
}
