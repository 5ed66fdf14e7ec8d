import { BodyAbortedError, BodyTooLargeError, declaredTooLarge, decodeUtf8, readWebBody } from './http-body.js';
import type { AuthenticateRequest, EndpointRequest } from './http-request.js';
import type { HttpResponse, ResponseHeaders } from './http-response.js';

/** What a fetch runtime knows about the connection that the Request does not carry. */
export interface FetchRequestInfo {
  /** The client's IP address (Bun: `server.requestIP(req)`, Deno: `info.remoteAddr`, @hono/node-server: `c.env.incoming.socket.remoteAddress`). */
  remoteAddress?: string;
}

/**
 * The web-standard face: serves a Web Request with the endpoint `route` and
 * resolves to its Web Response. A short answer is one string body; one that
 * streams (SSE) is a ReadableStream that stays open until the endpoint ends
 * it. The client going away (`request.signal` aborting, watched once an
 * answer is slow or streams, or the runtime cancelling the body stream) is
 * what a dropped connection is to Node: the call in flight is cancelled and
 * its stream slot freed.
 */
export function serveFetch(request: Request, info: FetchRequestInfo | undefined, route: (req: EndpointRequest, res: HttpResponse) => void): Promise<Response> {
  const res = new WebResponseSink(() => watchForDisconnect(request, res));
  const req = new WebEndpointRequest(request, info?.remoteAddress, res);
  route(req, res);
  return res.response;
}

/**
 * How long an answer may take before the face starts watching `request.signal`. Reading the
 * signal is what a Request costs most on Node: Hono's adapter makes an AbortController on its
 * first read, a third of a quick call's CPU. A quick answer never needs it, a slow call or a
 * stream is watched, and nothing is missed by starting late: a signal that aborted before it is
 * read says so (`aborted`).
 */
const WATCH_DISCONNECT_AFTER_MS = 25;

/** The client going away ends the answer: a call in flight is cancelled, its stream slot freed. */
function watchForDisconnect(request: Request, res: WebResponseSink): void {
  const signal = request.signal;
  if (!signal) return;
  const abort = () => res.destroy();
  if (signal.aborted) abort();
  else {
    signal.addEventListener('abort', abort, { once: true });
    res.once('close', () => signal.removeEventListener('abort', abort));
  }
}

/** A Web Request as the endpoint reads it; also what the `authenticate` hook is given on this face. */
class WebEndpointRequest implements EndpointRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly remotePort = undefined;
  readonly connection = undefined;

  constructor(
    readonly request: Request,
    readonly remoteAddress: string | undefined,
    private readonly res: WebResponseSink,
  ) {
    this.method = request.method;
    const href = request.url;
    // The path and query of an absolute URL, without parsing all of it: after "scheme://authority".
    const slash = href.indexOf('/', href.indexOf('//') + 2);
    this.url = slash === -1 ? '/' : href.slice(slash);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (headers.host === undefined) headers.host = href.slice(href.indexOf('//') + 2, slash === -1 ? undefined : slash);
    this.headers = headers;
  }

  get hookRequest(): AuthenticateRequest {
    // One value a header (a Web Headers object joins repeats), as Node gives all but Set-Cookie.
    return this as AuthenticateRequest;
  }

  readBody(limit: number): Promise<string> {
    const declared = this.headers['content-length'];
    if (declaredTooLarge(declared, limit)) return Promise.reject(new BodyTooLargeError());
    if (this.res.destroyed) return Promise.reject(new BodyAbortedError());
    // A declared length within the limit bounds what the runtime reads (HTTP's framing): read it
    // whole, the runtimes' fast path (Hono's Node adapter reads it without building a Request).
    if (declared !== undefined) {
      return this.request.arrayBuffer().then(
        (bytes) => {
          if (bytes.byteLength > limit) throw new BodyTooLargeError();
          return decodeUtf8(bytes);
        },
        (err: unknown) => {
          throw this.res.destroyed ? new BodyAbortedError() : err;
        },
      );
    }
    // Chunked, length unknown: read as it comes, cancelled at the first byte past the limit.
    return readWebBody(this.request.body, limit, () => this.res.destroyed);
  }
}

/** Hop-by-hop headers belong to the runtime's connection, not to a Web Response; it computes Content-Length from the body. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);
const encoder = new TextEncoder();

/**
 * The answer sink of the fetch face: what the endpoint writes becomes a Web
 * Response. `writeHead(…).end(body)` in one turn is a string body; headers
 * flushed, or an answer still open after that turn, stream as a
 * ReadableStream (SSE), written as the endpoint writes and ended with it.
 */
class WebResponseSink implements HttpResponse {
  statusCode = 200;
  headersSent = false;
  destroyed = false;
  writableEnded = false;
  writableFinished = false;
  readonly response: Promise<Response>;
  private readonly headers: Array<[string, string]> = [];
  private resolve!: (response: Response) => void;
  private settled = false;
  private written: string[] = [];
  private stream?: ReadableStreamDefaultController<Uint8Array>;
  private closeListeners: Array<() => void> = [];
  private closed = false;
  private watchTimer?: ReturnType<typeof setTimeout>;

  /** `watch` starts watching for the client going away: for an answer slower than WATCH_DISCONNECT_AFTER_MS, or one that streams. */
  constructor(private watch: () => void) {
    this.response = new Promise((resolve) => (this.resolve = resolve));
    this.watchTimer = setTimeout(() => this.startWatching(), WATCH_DISCONNECT_AFTER_MS);
  }

  private startWatching(): void {
    const watch = this.stopWaitingToWatch();
    if (!this.destroyed && !this.closed) watch();
  }

  /** Ends the wait for a slow answer and gives what would start watching, once (after that, nothing). */
  private stopWaitingToWatch(): () => void {
    clearTimeout(this.watchTimer);
    const watch = this.watch;
    this.watch = noop;
    return watch;
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    const key = name.toLowerCase();
    for (let i = this.headers.length - 1; i >= 0; i--) if (this.headers[i][0] === key) this.headers.splice(i, 1);
    if (CONNECTION_HEADERS.has(key)) return this;
    if (Array.isArray(value)) for (const v of value) this.headers.push([key, String(v)]);
    else this.headers.push([key, String(value)]);
    return this;
  }

  writeHead(status: number, headers?: ResponseHeaders): this {
    if (this.headersSent) return this;
    this.statusCode = status;
    if (headers) for (const name in headers) if (headers[name] !== undefined) this.setHeader(name, headers[name] as string);
    this.headersSent = true;
    // `writeHead(…).end(json)` is one string body; anything still open after this turn streams.
    queueMicrotask(() => this.settle());
    return this;
  }

  flushHeaders(): void {
    if (!this.headersSent) this.writeHead(this.statusCode);
    this.settle();
  }

  write(chunk: string): boolean {
    if (this.writableEnded || this.destroyed) return false;
    if (!this.headersSent) this.writeHead(this.statusCode);
    if (!this.stream) {
      this.written.push(chunk);
      return true;
    }
    this.stream.enqueue(encoder.encode(chunk));
    // false once the reader is a chunk behind its queue: the same signal as Node's write().
    return (this.stream.desiredSize ?? 1) > 0;
  }

  end(chunk?: string): this {
    if (this.writableEnded || this.destroyed) return this;
    if (chunk !== undefined && chunk !== '') this.write(chunk);
    if (!this.headersSent) this.writeHead(this.statusCode);
    this.writableEnded = true;
    if (this.stream) {
      this.stream.close();
      this.finish();
    }
    return this;
  }

  once(_event: 'close', listener: () => void): this {
    if (this.closed) queueMicrotask(listener);
    else this.closeListeners.push(listener);
    return this;
  }

  off(_event: 'close', listener: () => void): this {
    const at = this.closeListeners.indexOf(listener);
    if (at !== -1) this.closeListeners.splice(at, 1);
    return this;
  }

  /** The client went away: what is open ends, and 'close' tells the endpoint (a call in flight is cancelled). */
  destroy(): void {
    if (this.destroyed || this.writableFinished) return;
    this.destroyed = true;
    try {
      this.stream?.close();
    } catch {
      // Already closed by the reader's cancel.
    }
    this.stopWaitingToWatch();
    // Nobody is left to read it; the promise must still settle.
    if (!this.settled) {
      this.settled = true;
      this.resolve(new Response(null, { status: 499 }));
    }
    this.emitClose();
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    const init = { status: this.statusCode, headers: headersInit(this.headers) };
    if (this.writableEnded) {
      // The whole answer is here: the client going away can no longer change anything.
      this.stopWaitingToWatch();
      const text = this.written.length === 1 ? this.written[0] : this.written.join('');
      this.written = [];
      this.resolve(new Response(text === '' || nullBodyStatus(this.statusCode) ? null : text, init));
      this.finish();
      return;
    }
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.stream = controller;
        for (const chunk of this.written) controller.enqueue(encoder.encode(chunk));
        this.written = [];
      },
      cancel: () => this.destroy(),
    });
    this.resolve(new Response(body, init));
    // A stream stays open until the client goes away: watch for it from now on.
    this.startWatching();
  }

  private finish(): void {
    this.writableFinished = true;
    this.emitClose();
  }

  /** 'close' comes a turn later, as Node's does: after what the endpoint does next in this one. */
  private emitClose(): void {
    queueMicrotask(() => {
      if (this.closed) return;
      this.closed = true;
      const listeners = this.closeListeners;
      this.closeListeners = [];
      for (const listener of listeners) listener();
    });
  }
}

function noop(): void {}

/**
 * The headers as a record when each name is there once (every answer but a rare one): a Response
 * made from a record is cheaper than from a list on Node (Hono's adapter builds no Headers object
 * for it); a repeated name keeps the list.
 */
function headersInit(list: Array<[string, string]>): HeadersInit {
  const record: Record<string, string> = Object.create(null);
  for (const [name, value] of list) {
    if (name in record) return list;
    record[name] = value;
  }
  return record;
}

/** Statuses a Response must have no body for (Fetch standard "null body status"). */
function nullBodyStatus(status: number): boolean {
  return status === 101 || status === 204 || status === 205 || status === 304;
}
