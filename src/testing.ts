/**
 * toolwright/testing: a ToolServer and a ToolClient joined in memory, for
 * tests that want the real protocol without processes or sockets.
 */
import { DefaultAuditSink } from './audit/default-sink.js';
import { ToolClient } from './client/client.js';
import type { ToolClientOptions } from './client/types.js';
import type { ToolServer } from './server/server.js';
import { MemoryClientTransport } from './transports/memory-client.js';

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
export { MemoryClientTransport, type MemoryTransportOptions } from './transports/memory-client.js';
