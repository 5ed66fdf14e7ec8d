import type { IncomingMessage } from 'node:http';
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
    this.remoteAddress = socket?.remoteAddress;
    this.remotePort = socket?.remotePort;
    this.connection = socket;
  }

  readBody(limit: number): Promise<string> {
    return readNodeBody(this.hookRequest, limit);
  }
}
