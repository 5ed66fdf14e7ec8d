import { HttpClientTransport } from '../transports/http-client.js';
import { StdioClientTransport } from '../transports/stdio-client.js';
import type { ClientTransport } from './transport.js';
import type { ClientTarget } from './types.js';

export interface OpenOptions {
  maxMessageBytes?: number;
  closeGraceMs?: number;
  onWarning: (message: string) => void;
}

/** Builds the transport a target describes: a URL means HTTP, a command means stdio. */
export async function openTransport(target: ClientTarget, options: OpenOptions): Promise<ClientTransport> {
  if ('transport' in target) return target.transport;
  if ('url' in target) return new HttpClientTransport(target, options);
  if ('command' in target && typeof target.command === 'string') return StdioClientTransport.start(target, options);
  throw new TypeError('a target is { url } for HTTP, { command, args } for stdio, or { transport }');
}
