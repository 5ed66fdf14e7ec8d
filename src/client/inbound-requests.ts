import { ErrorCode } from '../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../jsonrpc/types.js';
import { Method } from '../protocol/methods.js';
import { defaultServerResponse, errorResponse } from './server-requests.js';
import type { ServerRequestHandler } from './transport.js';

/** Most server requests answered at once; a server flooding a human with questions is refused. */
const MAX_LIVE = 32;

/**
 * The requests a server sent on one channel that the client is still
 * answering. Each gets a signal that aborts when the server cancels it
 * (cancellation.mdx: either side may cancel), when `scope` ends (the client
 * request it came with is over), or when the channel closes. A request the
 * server cancelled gets no answer (cancellation.mdx: the receiver SHOULD NOT
 * respond); one whose scope ended still does, so a server never waits forever.
 */
export class InboundRequests {
  private readonly live = new Map<RequestId, AbortController>();
  private closed = false;

  constructor(
    private readonly send: (response: JsonRpcResponse) => void | Promise<void>,
    private readonly warn: (message: string) => void,
  ) {}

  accept(request: JsonRpcRequest, handler: ServerRequestHandler | undefined, scope?: AbortSignal, relatedRequest?: JsonRpcRequest): void {
    if (this.closed) return;
    // ping needs no handler and must not wait behind a human.
    if (!handler || request.method === Method.ping) return void this.deliver(defaultServerResponse(request));
    if (this.live.has(request.id)) return void this.deliver(errorResponse(request.id, ErrorCode.InvalidRequest, 'Invalid request: this id is already in use'));
    if (this.live.size >= MAX_LIVE) return void this.deliver(errorResponse(request.id, ErrorCode.InternalError, 'Internal error: too many requests in flight'));
    const own = new AbortController();
    this.live.set(request.id, own);
    const signal = scope ? AbortSignal.any([own.signal, scope]) : own.signal;
    void Promise.resolve()
      .then(() => handler(request, { signal, ...(relatedRequest ? { relatedRequest } : {}) }))
      .catch(() => errorResponse(request.id, ErrorCode.InternalError, `Internal error: the client could not answer ${request.method}`))
      .then((response) => {
        this.live.delete(request.id);
        if (!own.signal.aborted) this.deliver(response);
      });
  }

  /** Handles `notifications/cancelled` for one of ours; false when it names none (it may be for something else). */
  cancelled(notification: JsonRpcNotification): boolean {
    if (notification.method !== Method.cancelled) return false;
    const id = notification.params?.requestId;
    const controller = typeof id === 'string' || typeof id === 'number' ? this.live.get(id) : undefined;
    if (!controller) return false;
    controller.abort(new Error('the server cancelled the request'));
    return true;
  }

  /** The channel is gone: nothing can be answered any more. */
  close(reason: unknown): void {
    this.closed = true;
    for (const controller of this.live.values()) controller.abort(reason);
    this.live.clear();
  }

  private deliver(response: JsonRpcResponse): void {
    try {
      void Promise.resolve(this.send(response)).catch((err: unknown) => this.warn(`could not answer a server request: ${(err as Error).message}`));
    } catch (err) {
      this.warn(`could not answer a server request: ${(err as Error).message}`);
    }
  }
}
