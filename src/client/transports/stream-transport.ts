import type { JsonRpcNotification, JsonRpcRequest } from '../../jsonrpc/types.js';
import { StreamConnection } from './stream-connection.js';
import type { ClientTransport, IncomingResponse, SendOptions, ServerRequestHandler } from '../transport.js';

/**
 * What every transport over one message stream shares (a child's stdio, an
 * in-memory pair): requests and notifications go through a StreamConnection,
 * which correlates answers and routes the server's own messages. Subclasses
 * say how a message is sent (`send`) and feed what arrives to `connection`.
 */
export abstract class StreamClientTransport implements ClientTransport {
  abstract readonly kind: 'stdio' | 'memory';
  onNotification?: (notification: JsonRpcNotification) => void;
  protected readonly connection: StreamConnection;

  protected constructor(warn: (message: string) => void) {
    this.connection = new StreamConnection((json) => this.send(json), warn);
    this.connection.onNotification = (n) => this.onNotification?.(n);
  }

  /** Writes one serialized message to the server. */
  protected abstract send(json: string): void;

  abstract close(): Promise<void>;

  /** Requests the server sends; without a handler, `ping` is answered and the rest refused. */
  get onServerRequest(): ServerRequestHandler | undefined {
    return this.connection.onRequest;
  }

  set onServerRequest(handler: ServerRequestHandler | undefined) {
    this.connection.onRequest = handler;
  }

  request(request: JsonRpcRequest, options: SendOptions): Promise<IncomingResponse> {
    return this.connection.request(request, options);
  }

  async notify(notification: JsonRpcNotification): Promise<void> {
    this.connection.notify(notification);
  }
}
