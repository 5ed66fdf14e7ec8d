import type { JsonRpcNotification } from '../jsonrpc/types.js';
import type { Caller } from '../policy/auth/caller.js';
import { hasModernClaim } from '../protocol/meta.js';
import type { Era } from '../protocol/versions.js';
import type { Logger } from '../runtime/logger.js';

/** A notification a client sent (`notifications/cancelled`, `notifications/initialized`, `notifications/roots/list_changed`, …), as observers see it. */
export interface ClientNotification {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  /** 'modern' when it carries the 2026-07-28 `_meta` envelope, else 'legacy'. */
  readonly era: Era;
  /** Who sent it (the connection's caller; the anonymous caller when nobody authenticated). */
  readonly caller: Caller;
  /** What carries the connection ('stdio', 'http', …). */
  readonly transport: string;
}

export type ClientNotificationObserver = (notification: ClientNotification) => void;

/**
 * The one hook for what clients notify (server.onClientNotification): every
 * observer sees every notification, before the server acts on it. Observers
 * only observe: one that throws is logged and the others still run; none can
 * change or stop what the server does with it.
 */
export class ClientNotificationHub {
  private observers: readonly ClientNotificationObserver[] = [];

  constructor(private readonly logger: Logger) {}

  add(observer: ClientNotificationObserver): () => void {
    this.observers = [...this.observers, observer];
    return () => {
      this.observers = this.observers.filter((o) => o !== observer);
    };
  }

  /** Tells every observer; nothing is made when there is none. */
  tell(notification: JsonRpcNotification, caller: Caller, transport: string): void {
    if (this.observers.length === 0) return;
    const seen: ClientNotification = {
      method: notification.method,
      params: notification.params,
      era: hasModernClaim(notification.params) ? 'modern' : 'legacy',
      caller,
      transport,
    };
    for (const observer of this.observers) {
      try {
        observer(seen);
      } catch (err) {
        try {
          this.logger.error({ err, method: seen.method }, 'a client-notification observer threw');
        } catch {
          // A logger that throws must not stop the notification.
        }
      }
    }
  }
}
