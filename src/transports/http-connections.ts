import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { addressKey } from './client-address.js';

const OVER_CAPACITY_TEXT = 'Too many connections; retry in a few seconds';
/** Sent on a connection over a cap, before any request is read; then the socket closes. */
const OVER_CAPACITY = `HTTP/1.1 503 Service Unavailable\r\nretry-after: 5\r\nconnection: close\r\ncontent-type: text/plain\r\ncontent-length: ${OVER_CAPACITY_TEXT.length}\r\n\r\n${OVER_CAPACITY_TEXT}`;

/**
 * Caps open connections, in all and per client address (the socket's: a
 * connection is counted before any header could name another). A connection
 * over a cap is answered 503 with Retry-After and closed; requests already
 * sent on it are never handled.
 */
export class ConnectionGate {
  private open = 0;
  private readonly perAddress = new Map<string, number>();
  private readonly refused = new WeakSet<Socket>();

  constructor(
    private readonly max: number,
    private readonly maxPerAddress: number,
  ) {}

  /** Counts every connection of `server` from now on. */
  attach(server: Server): void {
    // Runs after node:http's own listener has set up the parser; a refused socket's requests are dropped by `isRefused`.
    server.on('connection', (socket: Socket) => this.admit(socket));
  }

  /** True for a connection that was refused: its requests get no handling. */
  isRefused(socket: Socket): boolean {
    return this.refused.has(socket);
  }

  private admit(socket: Socket): void {
    const key = addressKey(socket.remoteAddress);
    const mine = this.perAddress.get(key) ?? 0;
    if (this.open >= this.max || mine >= this.maxPerAddress) {
      this.refused.add(socket);
      socket.on('error', () => {}); // a client that resets first is no failure of ours
      socket.end(OVER_CAPACITY, () => socket.destroy());
      return;
    }
    this.open++;
    this.perAddress.set(key, mine + 1);
    socket.once('close', () => {
      this.open--;
      const left = (this.perAddress.get(key) ?? 1) - 1;
      if (left === 0) this.perAddress.delete(key);
      else this.perAddress.set(key, left);
    });
  }
}
