import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * The facade's routes on the web-standard face (Hono, Bun, Deno, Workers with node:stream): a
 * Web Request for one of its paths is served by the same handlers as on Node, and answered as a
 * Web Response; another path resolves to undefined (hand it to the MCP handler's `fetch`).
 * `remoteAddress` is the client's address, which the /register and /token limits count by
 * (without it, and without `trustProxy`, every client shares one count).
 */
export function fetchFace(routes: Readonly<Record<string, Route>>): (request: Request, info?: { remoteAddress?: string }) => Promise<Response | undefined> {
  return async (request, info) => {
    const href = request.url;
    // The path and query of an absolute URL: after "scheme://authority".
    const slash = href.indexOf('/', href.indexOf('//') + 2);
    const target = slash === -1 ? '/' : href.slice(slash);
    const query = target.indexOf('?');
    const path = query === -1 ? target : target.slice(0, query);
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (!route) return undefined;
    const res = new CollectedResponse();
    await route(nodeRequestOf(request, target, info?.remoteAddress), res as unknown as ServerResponse);
    return res.response();
  };
}

/** What the handlers read of Node's request: method, url, headers (lower-case names), the client's address, and the body as a stream. */
function nodeRequestOf(request: Request, url: string, remoteAddress: string | undefined): IncomingMessage {
  const body = request.body ? Readable.fromWeb(request.body as import('node:stream/web').ReadableStream) : Readable.from([]);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return Object.assign(body, { method: request.method, url, headers, socket: { remoteAddress } }) as unknown as IncomingMessage;
}

/** What the handlers write of Node's response (status, headers, one body), collected into a Web Response. */
class CollectedResponse {
  private status = 200;
  private readonly headers = new Headers();
  private body?: string;

  setHeader(name: string, value: string | number | readonly string[]): this {
    this.headers.delete(name);
    for (const one of Array.isArray(value) ? value : [String(value)]) this.headers.append(name, one);
    return this;
  }

  writeHead(status: number, headers: Record<string, string | number | readonly string[]> = {}): this {
    this.status = status;
    for (const [name, value] of Object.entries(headers)) this.setHeader(name, value);
    return this;
  }

  end(body?: string): this {
    this.body = body;
    return this;
  }

  response(): Response {
    // A body-less status must have a null body (204 for a preflight, 302 redirects carry none).
    const empty = this.status === 204 || this.status === 304 || this.body === undefined;
    if (empty) this.headers.delete('content-length');
    return new Response(empty ? null : this.body, { status: this.status, headers: this.headers });
  }
}
