import type { JsonRpcNotification } from '../jsonrpc/types.js';
import { Method } from '../protocol/methods.js';
import type { Era } from '../protocol/versions.js';
import { ChangeSubscription, SUBSCRIPTION_ACKNOWLEDGED, type ChangeFilter } from './change-subscription.js';
import { LIST_CHANGE_FIELDS, ServerEvents, type ClientEventListener, type ClientEventName } from './server-events.js';
import type { RequestOptions } from './session.js';
import type { ClientSession } from './session.js';
import type { ToolClientOptions } from './types.js';

type Rpc = (method: string, params: Record<string, unknown>, options: RequestOptions) => Promise<Record<string, unknown>>;

/**
 * What the client listens to and how the server is asked for it: the
 * listeners (ServerEvents), the resources subscribed, and for a modern
 * server the subscriptions/listen stream that follows both. A legacy server
 * announces list changes unasked and is asked for resource updates with
 * `resources/subscribe`.
 */
export class Listening {
  readonly events: ServerEvents;
  private changes?: ChangeSubscription;
  /** Resources whose updates were asked for (subscribeResource). */
  private readonly watched = new Set<string>();

  constructor(warn: (message: string) => void, options: ToolClientOptions) {
    this.events = new ServerEvents(warn, () => void this.changes?.update(this.filter()));
    // The constructor's callbacks are the first listeners; more may come, before or after connect().
    if (options.onToolsListChanged) this.events.on('toolsChanged', options.onToolsListChanged, 'the onToolsListChanged callback');
    if (options.onPromptsListChanged) this.events.on('promptsChanged', options.onPromptsListChanged, 'the onPromptsListChanged callback');
    if (options.onResourcesListChanged) this.events.on('resourcesChanged', options.onResourcesListChanged, 'the onResourcesListChanged callback');
    if (options.onResourceUpdated) this.events.on('resourceUpdated', options.onResourceUpdated, 'the onResourceUpdated callback');
    if (options.onLog) this.events.on('log', options.onLog, 'the onLog callback');
  }

  on<E extends ClientEventName>(event: E, listener: ClientEventListener<E>): () => void {
    return this.events.on(event, listener);
  }

  /** Connected: a modern server is asked for what is listened to, now and whenever that changes. */
  start(session: ClientSession, era: Era, onNotification: (n: JsonRpcNotification) => void, warn: (message: string) => void): void {
    if (era !== 'modern') return;
    this.changes = new ChangeSubscription(session, onNotification, warn);
    void this.changes.update(this.filter());
  }

  stop(): void {
    const changes = this.changes;
    this.changes = undefined;
    changes?.stop();
  }

  /** A notification that is not a call's own: an acknowledgment of the stream, or an event. */
  notify(n: JsonRpcNotification): void {
    if (n.method === SUBSCRIPTION_ACKNOWLEDGED) this.changes?.acknowledged();
    else this.events.dispatch(n);
  }

  async subscribe(uri: string, era: Era, rpc: Rpc, signal?: AbortSignal): Promise<void> {
    if (typeof uri !== 'string' || uri.length === 0 || uri.length > 8192) throw new TypeError('a resource URI must be a non-empty string');
    if (era === 'modern') {
      this.watched.add(uri);
      return this.changes?.update(this.filter());
    }
    await rpc(Method.resourcesSubscribe, { uri }, { signal });
    this.watched.add(uri);
  }

  async unsubscribe(uri: string, era: Era, rpc: Rpc, signal?: AbortSignal): Promise<void> {
    if (!this.watched.delete(uri)) return;
    if (era === 'modern') return this.changes?.update(this.filter());
    await rpc(Method.resourcesUnsubscribe, { uri }, { signal });
  }

  /** A new legacy session knows none of the old one's subscriptions: they are asked for again. */
  async resubscribe(rpc: Rpc): Promise<void> {
    for (const uri of this.watched) await rpc(Method.resourcesSubscribe, { uri }, {});
  }

  /** What a modern server is asked to send: what is listened to, and the resources subscribed. */
  private filter(): ChangeFilter {
    const filter: ChangeFilter = {};
    for (const [event, field] of Object.entries(LIST_CHANGE_FIELDS)) if (this.events.has(event as ClientEventName)) filter[field] = true;
    if (this.watched.size > 0) filter.resourceSubscriptions = [...this.watched];
    return filter;
  }
}
