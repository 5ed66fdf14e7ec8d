import type { JsonRpcNotification } from '../jsonrpc/types.js';
import { ErrorCode } from '../jsonrpc/errors.js';
import { Method } from '../protocol/methods.js';
import { McpRpcError } from './errors.js';
import type { ClientSession } from './session.js';

/** setTimeout's ceiling: the stream has no deadline of its own, but the session wants one. */
const OPEN_ENDED_MS = 2 ** 31 - 1;
/** A stream that lived this long was healthy: when it drops, it is opened again. */
const HEALTHY_MS = 10_000;
const RETRY_MS = 1_000;

/** What a `subscriptions/listen` request asks for (subscriptions.mdx). */
export interface ChangeFilter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
}

const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

/**
 * A modern client's subscription to changes (subscriptions.mdx): one
 * `subscriptions/listen` request with the current filter, open until stopped.
 * When what the client listens to changes (a listener added after connect, a
 * resource subscribed), a stream with the new filter is opened and then the
 * old one is closed. Notifications reach `onNotification` (on stdio they
 * arrive on the shared channel, which the client already handles). A server
 * that ends the stream gracefully (a result) is not asked again; one that
 * drops it after a healthy while is asked again; a server without
 * subscriptions (-32601) is left alone; anything else is one warning.
 */
export class ChangeSubscription {
  private current?: Stream;

  constructor(
    private readonly session: ClientSession,
    private readonly onNotification: (notification: JsonRpcNotification) => void,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * Listens with this filter from now on (an empty one closes the stream).
   * Resolves when the server acknowledged it, or gave up on it (refused,
   * ended): waiting never hangs on a server that does not answer as asked.
   */
  update(filter: ChangeFilter): Promise<void> {
    const key = JSON.stringify(filter);
    if (this.current?.filter === key) return Promise.resolve();
    const previous = this.current;
    this.current = undefined;
    let started: Promise<void> = Promise.resolve();
    if (Object.keys(filter).length > 0) {
      const stream: Stream = { filter: key, stop: new AbortController(), waiting: [] };
      this.current = stream;
      started = new Promise<void>((resolve) => stream.waiting.push(resolve));
      void this.listen(filter, stream).finally(() => settle(stream));
    }
    if (previous) {
      previous.stop.abort(new Error('the subscription changed'));
      settle(previous);
    }
    return started;
  }

  /** The server acknowledged the newest stream (`notifications/subscriptions/acknowledged`; on stdio it comes on the shared channel). */
  acknowledged(): void {
    if (this.current) settle(this.current);
  }

  stop(): void {
    const stream = this.current;
    this.current = undefined;
    if (stream) {
      stream.stop.abort(new Error('the client closed'));
      settle(stream);
    }
  }

  private async listen(filter: ChangeFilter, stream: Stream): Promise<void> {
    const stopped = stream.stop.signal;
    for (;;) {
      const opened = Date.now();
      try {
        await this.session.request(
          Method.subscriptionsListen,
          { notifications: filter },
          {
            signal: stopped,
            timeoutMs: OPEN_ENDED_MS,
            onNotification: (n) => (n.method === ACKNOWLEDGED ? settle(stream) : this.onNotification(n)),
          },
        );
        return; // the server closed it gracefully (subscriptions.mdx "Graceful Closure")
      } catch (err) {
        if (stopped.aborted) return;
        if (err instanceof McpRpcError && err.code === ErrorCode.MethodNotFound) return;
        if (Date.now() - opened < HEALTHY_MS) {
          this.warn(`changes will not be seen: subscriptions/listen failed: ${(err as Error).message}`);
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref?.());
      if (stopped.aborted) return;
    }
  }
}

interface Stream {
  filter: string;
  stop: AbortController;
  /** Who waits for the server to acknowledge it. */
  waiting: Array<() => void>;
}

function settle(stream: Stream): void {
  const waiting = stream.waiting;
  stream.waiting = [];
  for (const resolve of waiting) resolve();
}

export { ACKNOWLEDGED as SUBSCRIPTION_ACKNOWLEDGED };
