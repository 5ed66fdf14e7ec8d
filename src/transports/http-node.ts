import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { readNodeBody } from './http-node-body.js';
import type { EndpointRequest } from './http-request.js';

/**
 * The Node adapter's view of an IncomingMessage as the endpoint's
 * EndpointRequest: one small object, its fields read once, no copy of the
 * headers (Node's object is already lower-cased). Node's ServerResponse is
 * the answer sink as it is (http-response.ts names the part used), so the
 * Node face costs this one object per request over the web-standard core.
 */
export class NodeEndpointRequest implements EndpointRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly remoteAddress: string | undefined;
  readonly remotePort: number | undefined;
  readonly connection: object | undefined;

  constructor(
    /** Given to the `authenticate` hook as it is, as before the web-standard core. */
    readonly hookRequest: IncomingMessage,
    /** Express's `req.originalUrl` when there (a router mounted under a prefix rewrites `req.url`). */
    url: string | undefined,
  ) {
    // Always there on a served request; a hand-made one (tests, adapters) may lack it.
    const socket = hookRequest.socket ?? undefined;
    this.method = hookRequest.method ?? 'GET';
    this.url = url ?? '/';
    this.headers = hookRequest.headers;
    const peer = socket && peerOf(socket);
    this.remoteAddress = peer?.address;
    this.remotePort = peer?.port;
    this.connection = socket;
  }

  readBody(limit: number): Promise<string> {
    return readNodeBody(this.hookRequest, limit);
  }
}

interface PeerAddress {
  address: string | undefined;
  port: number | undefined;
}

/**
 * Each connection's peer address and port, read once: Node's `remoteAddress` and `remotePort`
 * getters look the peer up again on every read (~1% of an HTTP call's server CPU, for two
 * values that never change while the connection lives). Kept only once known: a socket
 * already closed tells nothing, and is asked again should it be seen again.
 */
const peers = new WeakMap<Socket, PeerAddress>();

function peerOf(socket: Socket): PeerAddress {
  let peer = peers.get(socket);
  if (!peer) {
    peer = { address: socket.remoteAddress, port: socket.remotePort };
    if (peer.address !== undefined) peers.set(socket, peer);
  }
  return peer;
}
