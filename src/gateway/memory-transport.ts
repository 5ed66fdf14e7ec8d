import { ConnectionError } from '../client/errors.js';
import { StreamClientTransport } from '../client/transports/stream-transport.js';
import type { ConnectOptions, ServerConnection } from '../server/connection.js';
import type { ToolServer } from '../server/server.js';

/**
 * The gateway's channel to a ToolServer in the same process (`mount(server, name, { server: other })`),
 * on its public `connect` only. Messages still travel as JSON text, asynchronously, so the mounted
 * server sees exactly what a stdio client would send, and the gateway's client what it would receive.
 */
export class InProcessTransport extends StreamClientTransport {
  readonly kind = 'memory' as const;
  private readonly connection_: ServerConnection;
  private closed = false;

  /** `as`: the connection's label and caller (search mode connects as the calling client); default an anonymous 'gateway' connection. */
  constructor(server: ToolServer, warn: (message: string) => void, as: { transport: string; caller?: ConnectOptions['caller'] } = { transport: 'gateway' }) {
    super(warn);
    const deliver = (json: string) => queueMicrotask(() => this.closed || this.connection.receive(json));
    this.connection_ = server.connect({ ...as, send: deliver });
  }

  protected send(json: string): void {
    if (this.closed) throw new ConnectionError('the in-process connection is closed', 'closed');
    queueMicrotask(() => {
      if (this.closed) return;
      const reply = this.connection_.receive(json);
      reply?.then((r) => r !== undefined && !this.closed && this.connection.receive(r.json));
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.connection_.close();
    this.connection.fail(new ConnectionError('the in-process connection is closed', 'closed'));
  }
}
