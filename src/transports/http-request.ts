import type { IncomingHttpHeaders } from 'node:http';

/** Request headers by lower-cased name, as Node gives them (a repeated header may be a list). */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * What an `authenticate` hook is given: on the Node face Node's own
 * IncomingMessage (which has all of this and more), on the fetch face this
 * with the Web `request` itself. Read `headers`; they are lower-cased on both.
 */
export interface AuthenticateRequest {
  readonly method?: string;
  /** The request target, path and query. */
  readonly url?: string;
  /** Node's header type (a type only: nothing of Node is loaded), so that `req.headers.authorization` is a string. */
  readonly headers: IncomingHttpHeaders;
  /** The Web Request, on the fetch face. */
  readonly request?: Request;
}

/**
 * One HTTP request as the MCP endpoint reads it, whatever the runtime: the
 * web-standard face (http-fetch.ts) builds it from a `Request`, the Node
 * adapter (http-node.ts) from an IncomingMessage, each in one small object.
 * Nothing here names a Node type: the endpoint runs wherever `Request`,
 * `Response` and web streams do.
 */
export interface EndpointRequest {
  readonly method: string;
  /** The request target as the client sent it: path and query. */
  readonly url: string;
  readonly headers: RequestHeaders;
  /** The connecting peer's address (a proxy's, behind one), when the runtime tells it. */
  readonly remoteAddress: string | undefined;
  readonly remotePort: number | undefined;
  /**
   * One object per connection where the runtime has connections to see
   * (Node's socket): a memo kept there lasts as long as the connection.
   * Undefined on the fetch face, which sees requests only.
   */
  readonly connection: object | undefined;
  /** What the `authenticate` hook is given. */
  readonly hookRequest: AuthenticateRequest;
  /**
   * The body as UTF-8 text. Rejects with BodyTooLargeError past `limit`
   * bytes (without buffering the rest), BodyAbortedError when the client went
   * away first, an RpcError parse error for bytes that are not UTF-8.
   */
  readBody(limit: number): Promise<string>;
}
