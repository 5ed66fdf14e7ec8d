import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../jsonrpc/types.js';
import type { ClientTransport, CloseOptions, IncomingResponse, SendOptions, ServerRequestHandler, WireContext } from './transport.js';

/** A JSON-RPC message as the wire tap hands it over (request, notification, result or error). */
export type WireMessage = JsonRpcMessage;

/** Which way a JSON-RPC message went: `sent` by the client, `received` from the server. */
export type WireDirection = 'sent' | 'received';

/**
 * Told of every JSON-RPC message the client sends and receives (a protocol debugger's history):
 * requests, results and errors, notifications both ways, the server's requests and the
 * client's answers. Only the messages: HTTP headers (an Authorization token) never reach it.
 * `ping` requests the transport answers by itself are not seen.
 */
export type WireListener = (direction: WireDirection, message: JsonRpcMessage) => void;

/**
 * A transport that tells `listener` of each message passing through `inner`, and otherwise
 * behaves as `inner` does: the same notification routing (a request's own handler is wrapped
 * only when it has one) and the same answers. A listener that throws never breaks the
 * connection.
 */
export function tapTransport(inner: ClientTransport, listener: WireListener): ClientTransport {
  return new TappedTransport(inner, listener);
}

class TappedTransport implements ClientTransport {
  private notificationHandler?: (notification: JsonRpcNotification) => void;
  private requestHandler?: ServerRequestHandler;
  capturedStderr?: () => string | undefined;

  constructor(
    private readonly inner: ClientTransport,
    private readonly listener: WireListener,
  ) {
    if (inner.capturedStderr) this.capturedStderr = () => inner.capturedStderr?.();
  }

  get kind(): ClientTransport['kind'] {
    return this.inner.kind;
  }
  get serverAddress(): ClientTransport['serverAddress'] {
    return this.inner.serverAddress;
  }
  get legacySessionId(): string | undefined {
    return this.inner.legacySessionId;
  }

  get onNotification(): ((notification: JsonRpcNotification) => void) | undefined {
    return this.notificationHandler;
  }
  set onNotification(handler: ((notification: JsonRpcNotification) => void) | undefined) {
    this.notificationHandler = handler;
    this.inner.onNotification = handler && this.seen(handler);
  }

  get onServerRequest(): ServerRequestHandler | undefined {
    return this.requestHandler;
  }
  set onServerRequest(handler: ServerRequestHandler | undefined) {
    this.requestHandler = handler;
    this.inner.onServerRequest =
      handler &&
      (async (request, context) => {
        this.see('received', request);
        const response = await handler(request, context);
        this.see('sent', response);
        return response;
      });
  }

  async request(request: JsonRpcRequest, options: SendOptions): Promise<IncomingResponse> {
    this.see('sent', request);
    const own = options.onNotification;
    const response = await this.inner.request(request, own ? { ...options, onNotification: this.seen(own) } : options);
    this.see('received', response.message);
    return response;
  }

  async notify(notification: JsonRpcNotification, wire: WireContext): Promise<void> {
    this.see('sent', notification);
    await this.inner.notify(notification, wire);
  }

  close(options?: CloseOptions): Promise<void> {
    return this.inner.close(options);
  }

  private seen(handler: (notification: JsonRpcNotification) => void): (notification: JsonRpcNotification) => void {
    return (notification) => {
      this.see('received', notification);
      handler(notification);
    };
  }

  private see(direction: WireDirection, message: JsonRpcMessage): void {
    try {
      this.listener(direction, message);
    } catch {
      // A debugger's listener must not break the connection it watches.
    }
  }
}
