import { ConnectionError } from '../client/errors.js';
import { StreamConnection } from '../client/stream-connection.js';
import type { ClientTransport, IncomingResponse, SendOptions, ServerRequestHandler } from '../client/transport.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../jsonrpc/types.js';
import type { ToolServer } from '../server/server.js';
import { MessageStreamSession } from './message-stream.js';

export interface MemoryTransportOptions {
  /** Largest message either side accepts (default 16 MiB), as a real transport would. */
  maxMessageBytes?: number;
  onWarning?: (message: string) => void;
}

/**
 * A client transport wired straight to a ToolServer in the same process.
 * Messages still travel as JSON text, one at a time and asynchronously, so
 * tests see exactly what a stdio client would.
 */
export class MemoryClientTransport implements ClientTransport {
  readonly kind = 'memory' as const;
  private readonly connection: StreamConnection;
  private readonly session: MessageStreamSession;
  private closed = false;

  constructor(server: ToolServer, options: MemoryTransportOptions = {}) {
    const limit = options.maxMessageBytes ?? 16 * 1024 * 1024;
    const warn = options.onWarning ?? (() => {});
    this.session = new MessageStreamSession(server, (json) => {
      queueMicrotask(() => {
        if (this.closed) return;
        if (Buffer.byteLength(json) > limit) this.connection.oversized(limit);
        else this.connection.receive(json);
      });
    }, 'memory');
    this.connection = new StreamConnection((json) => {
      if (this.closed) throw new ConnectionError('the in-memory connection is closed', 'closed');
      queueMicrotask(() => this.closed || this.session.receive(json));
    }, warn);
    this.connection.onNotification = (n) => this.onNotification?.(n);
  }

  onNotification?: (notification: JsonRpcNotification) => void;

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

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.session.close();
    this.connection.fail(new ConnectionError('the in-memory connection is closed', 'closed'));
  }
}
