import { ConnectionError } from '../client/errors.js';
import { StreamClientTransport } from '../client/transports/stream-transport.js';
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
export class MemoryClientTransport extends StreamClientTransport {
  readonly kind = 'memory' as const;
  private readonly session: MessageStreamSession;
  private closed = false;

  constructor(server: ToolServer, options: MemoryTransportOptions = {}) {
    super(options.onWarning ?? (() => {}));
    const limit = options.maxMessageBytes ?? 16 * 1024 * 1024;
    this.session = new MessageStreamSession(
      server,
      (json) => {
        queueMicrotask(() => {
          if (this.closed) return;
          if (Buffer.byteLength(json) > limit) this.connection.oversized(limit);
          else this.connection.receive(json);
        });
      },
      'memory',
    );
  }

  protected send(json: string): void {
    if (this.closed) throw new ConnectionError('the in-memory connection is closed', 'closed');
    queueMicrotask(() => this.closed || this.session.receive(json));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.session.close();
    this.connection.fail(new ConnectionError('the in-memory connection is closed', 'closed'));
  }
}
