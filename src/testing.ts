/**
 * toolwright/testing: a ToolServer and a ToolClient joined in memory, for
 * tests that want the real protocol without processes or sockets. The transport
 * between them needs both sides (the client's stream transport, the server's message
 * stream), so it lives here, above both, rather than in either.
 */
import { DefaultAuditSink } from './audit/default-sink.js';
import { ToolClient } from './client/client.js';
import { ConnectionError } from './client/errors.js';
import { StreamClientTransport } from './client/transports/stream-transport.js';
import type { ToolClientOptions } from './client/types.js';
import type { ToolServer } from './server/server.js';
import { MessageStreamSession } from './transports/message-stream.js';

interface MemoryTransportOptions {
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

export interface InMemoryPair {
  client: ToolClient;
  close(): Promise<void>;
}

/**
 * Connects a client to `server` in memory (the handshake included, so it is async). A server
 * built without an `audit` option keeps its records in memory then (unless it has already
 * written some to its file), so a test leaves no `.toolwright/audit.db` in the working directory.
 */
export async function createInMemoryPair(server: ToolServer, options: ToolClientOptions = {}): Promise<InMemoryPair> {
  if (server.audit instanceof DefaultAuditSink) server.audit.keepInMemory();
  const transport = new MemoryClientTransport(server, { maxMessageBytes: options.maxMessageBytes, onWarning: options.onWarning });
  const client = await ToolClient.connect({ transport }, options);
  return { client, close: () => client.close() };
}

export { MemoryAuditSink } from './audit/memory-sink.js';
