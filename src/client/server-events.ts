import type { JsonRpcNotification } from '../jsonrpc/types.js';
import { isLogLevel, type LogLevel } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import type { LogMessage, ResourceUpdate } from './types.js';

/** What a client can listen to, and what each listener is given. */
export interface ClientEvents {
  /** The server's tool list changed (the cached listing is already dropped). */
  toolsChanged: [];
  promptsChanged: [];
  resourcesChanged: [];
  /** A resource the client subscribed to (`subscribeResource`) changed. */
  resourceUpdated: [update: ResourceUpdate];
  /** A log message the server sent (`notifications/message`). */
  log: [message: LogMessage];
}
export type ClientEventName = keyof ClientEvents;
export type ClientEventListener<E extends ClientEventName> = (...args: ClientEvents[E]) => void;

const CLIENT_EVENTS: readonly ClientEventName[] = ['toolsChanged', 'promptsChanged', 'resourcesChanged', 'resourceUpdated', 'log'];

/** The list-change events, each with the `subscriptions/listen` field that asks for it (subscriptions.mdx). */
export const LIST_CHANGE_FIELDS = { toolsChanged: 'toolsListChanged', promptsChanged: 'promptsListChanged', resourcesChanged: 'resourcesListChanged' } as const;

interface Entry {
  listener: (...args: never[]) => void;
  /** How a throw is reported: "the onLog callback", "a log listener". */
  label: string;
}

/**
 * The client's listeners, by event: added before or after `connect()`, each
 * removed by the function `on` returned. A listener that throws is reported
 * as a warning and the others still run: a server's notification must not
 * break the client through the application's code.
 */
export class ServerEvents {
  private readonly listeners = new Map<ClientEventName, Set<Entry>>();

  constructor(
    private readonly warn: (message: string) => void,
    /** Told when an event gains its first listener or loses its last one (what the client subscribes to follows). */
    private readonly onInterestChange: () => void = () => {},
  ) {}

  on<E extends ClientEventName>(event: E, listener: ClientEventListener<E>, label = `a ${event} listener`): () => void {
    if (!CLIENT_EVENTS.includes(event))
      throw new TypeError(`unknown client event ${JSON.stringify(String(event)).slice(0, 60)}: one of ${CLIENT_EVENTS.join(', ')}`);
    if (typeof listener !== 'function') throw new TypeError(`the ${event} listener must be a function`);
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const entry: Entry = { listener: listener as Entry['listener'], label };
    set.add(entry);
    if (set.size === 1) this.onInterestChange();
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      set.delete(entry);
      if (set.size === 0) this.onInterestChange();
    };
  }

  has(event: ClientEventName): boolean {
    return (this.listeners.get(event)?.size ?? 0) > 0;
  }

  emit<E extends ClientEventName>(event: E, ...args: ClientEvents[E]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const { listener, label } of [...set]) {
      try {
        (listener as (...a: ClientEvents[E]) => void)(...args);
      } catch (err) {
        this.warn(`${label} threw: ${(err as Error)?.message ?? String(err)}`);
      }
    }
  }

  /** Turns a server notification into its event, if it is one; false for anything else. */
  dispatch(n: JsonRpcNotification): boolean {
    switch (n.method) {
      case Method.toolsListChanged:
        this.emit('toolsChanged');
        return true;
      case Method.promptsListChanged:
        this.emit('promptsChanged');
        return true;
      case Method.resourcesListChanged:
        this.emit('resourcesChanged');
        return true;
      case Method.resourcesUpdated: {
        // The URI is the server's word: a string of bounded size, or the notification is dropped.
        const uri = n.params?.uri;
        if (typeof uri !== 'string' || uri.length === 0 || uri.length > 8192) return true;
        this.emit('resourceUpdated', { uri });
        return true;
      }
      case Method.message: {
        const p = n.params;
        if (!p || !isLogLevel(p.level)) return true;
        this.emit('log', { level: p.level as LogLevel, data: p.data, ...(typeof p.logger === 'string' ? { logger: p.logger } : {}) });
        return true;
      }
      default:
        return false;
    }
  }
}
