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

/**
 * A modern client's subscription to tool list changes (subscriptions.mdx):
 * one `subscriptions/listen` request with `toolsListChanged`, open until
 * stopped. Its notifications reach `onNotification` (on stdio they arrive on
 * the shared channel, which the client already handles). A server that ends
 * the stream gracefully (a result) is not asked again; one that drops it
 * after a healthy while is asked again; a server without subscriptions
 * (-32601) is left alone; anything else is one warning.
 */
export class ToolChangeSubscription {
  private readonly stopped = new AbortController();

  constructor(
    private readonly session: ClientSession,
    private readonly onNotification: (notification: JsonRpcNotification) => void,
    private readonly warn: (message: string) => void,
  ) {}

  start(): void {
    void this.listen();
  }

  stop(): void {
    this.stopped.abort(new Error('the client closed'));
  }

  private async listen(): Promise<void> {
    for (;;) {
      const opened = Date.now();
      try {
        await this.session.request(Method.subscriptionsListen, { notifications: { toolsListChanged: true } }, {
          signal: this.stopped.signal,
          timeoutMs: OPEN_ENDED_MS,
          onNotification: this.onNotification,
        });
        return; // the server closed it gracefully (subscriptions.mdx "Graceful Closure")
      } catch (err) {
        if (this.stopped.signal.aborted) return;
        if (err instanceof McpRpcError && err.code === ErrorCode.MethodNotFound) return;
        if (Date.now() - opened < HEALTHY_MS) {
          this.warn(`tool list changes will not be seen: subscriptions/listen failed: ${(err as Error).message}`);
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref?.());
      if (this.stopped.signal.aborted) return;
    }
  }
}
