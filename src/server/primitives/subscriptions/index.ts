import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { isPlainObject } from '../../../protocol/content.js';
import { META } from '../../../protocol/meta.js';
import { Method } from '../../../protocol/methods.js';
import { callerOf } from '../../exchange.js';
import type { Operation } from '../../pipeline/operation.js';
import { ALSO_ACKNOWLEDGED, type SubscriptionHub } from '../../subscriptions.js';
import type { MethodResult, MethodTable, Primitive, RunOnly } from '../method-table.js';

/** What a stream may listen to besides the hub's notifications (the tasks' `taskIds`): given the plain listen, it serves the stream. */
export type ListenFilter = (listen: RunOnly) => RunOnly;

/**
 * `subscriptions/listen` (2026-07-28 basic/patterns/subscriptions.mdx): one
 * long-lived request per stream, acknowledged at once, then open until the
 * client cancels (no response) or the server closes it (a completion result
 * tagged with the subscription id). What it can carry comes from the
 * primitives (their list changes, resource updates) through the hub. The
 * legacy era has no such method: its sessions hear changes on their own channel.
 */
export class SubscriptionsPrimitive implements Primitive {
  /** Open streams, ended gracefully by `close()`. */
  private readonly listening = new Set<() => void>();

  constructor(
    private readonly hub: SubscriptionHub,
    private readonly filter?: ListenFilter,
  ) {}

  register(methods: MethodTable): void {
    const listen: RunOnly = (op, params) => this.listen(op, params);
    methods.runs(Method.subscriptionsListen, ['modern'], this.filter ? this.filter(listen) : listen, {
      tracked: true,
      stream: true,
      // What the stream listens to: the notifications it names (its filter is the arguments).
      names: (op, params) => {
        const filter = params.notifications;
        if (isPlainObject(filter)) op.target = Object.keys(filter).join(',');
        op.args = filter as Record<string, unknown>;
      },
    });
  }

  /** Ends every open subscription gracefully (server shutdown). */
  close(): void {
    for (const close of [...this.listening]) close();
  }

  private listen(op: Operation, params: Record<string, unknown>): Promise<MethodResult | undefined> {
    const { exchange, info } = op;
    const filter = params.notifications;
    if (!isPlainObject(filter))
      throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "notifications" must be an object naming the notifications to receive');
    const { peer } = exchange;
    let end!: (result: MethodResult | undefined) => void;
    const cancelled = { abort: () => end(undefined) };
    peer.inflight.add(info.requestId, cancelled);
    const also = (params as { [ALSO_ACKNOWLEDGED]?: Record<string, unknown> })[ALSO_ACKNOWLEDGED];
    const unsubscribe = this.hub.listen(info.requestId, filter, exchange.notify, callerOf(exchange), also);
    return new Promise((resolve) => {
      let ended = false;
      const stopWatching = exchange.onClose?.(() => end(undefined));
      end = (result) => {
        if (ended) return;
        ended = true;
        unsubscribe();
        stopWatching?.();
        this.listening.delete(close);
        peer.inflight.remove(cancelled);
        resolve(result);
      };
      const close = () => end({ _meta: { [META.subscriptionId]: info.requestId } });
      this.listening.add(close);
    });
  }
}
