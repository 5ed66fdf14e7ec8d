import { EventEmitter } from 'node:events';
import { IncomingMessage, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { Socket } from 'node:net';
import type { HttpResponse } from './http-response.js';

/** What a fetch runtime knows about the connection that the Request does not carry. */
export interface FetchRequestInfo {
  /** The client's IP address (Bun: `server.requestIP(req)`, Deno: `info.remoteAddr`, @hono/node-server: `c.env.incoming.socket.remoteAddress`). */
  remoteAddress?: string;
}

/** Hop-by-hop headers belong to the runtime's connection, not to a Web Response; it computes Content-Length from the body. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/**
 * Serves a Web Request with the Node handler `route`: the request becomes an
 * IncomingMessage (its body pulled from the Request's stream as the handler
 * reads), the answer a Response. A short answer is one string body; one that
 * streams (SSE) is a ReadableStream that stays open until the handler ends
 * it. The client going away (`request.signal`, or the body being cancelled)
 * closes the stand-in response, as a dropped connection closes Node's.
 */
export function serveFetch(request: Request, info: FetchRequestInfo | undefined, route: (req: IncomingMessage, res: HttpResponse) => void): Promise<Response> {
  const req = toIncomingMessage(request, info);
  const res = new WebResponseWriter();
  const abort = () => res.destroy();
  if (request.signal.aborted) abort();
  else request.signal.addEventListener('abort', abort, { once: true });
  res.once('close', () => {
    request.signal.removeEventListener('abort', abort);
    // A body nobody read any further is let go (a refusal, a 413), and a read still waiting ends.
    req.destroy();
  });
  route(req, res);
  return res.response;
}

function toIncomingMessage(request: Request, info: FetchRequestInfo | undefined): IncomingMessage {
  const url = new URL(request.url);
  // A socket that never connects: the handler reads the client's address from it, as from a real one.
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: info?.remoteAddress });
  const req = new IncomingMessage(socket);
  req.method = request.method;
  req.url = url.pathname + url.search;
  const headers: IncomingHttpHeaders = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers.host ??= url.host;
  req.headers = headers;
  const reader = request.body?.getReader();
  if (!reader) {
    req.push(null);
    return req;
  }
  // Pulled as the handler reads, stopping whenever its buffer is full: a body it refuses (413) is never buffered.
  let pumping = false;
  const pump = async () => {
    if (pumping) return;
    pumping = true;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return void req.push(null);
        if (!req.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength))) return;
      }
    } catch (err) {
      req.destroy(err as Error);
    } finally {
      pumping = false;
    }
  };
  req._read = () => void pump();
  req.once('close', () => {
    if (!req.readableEnded) reader.cancel().catch(() => undefined);
  });
  return req;
}

/**
 * Stands in for Node's ServerResponse (the part HttpResponse names) and
 * turns what the handler writes into a Web Response.
 */
class WebResponseWriter extends EventEmitter implements HttpResponse {
  statusCode = 200;
  headersSent = false;
  destroyed = false;
  writableEnded = false;
  writableFinished = false;
  readonly response: Promise<Response>;
  private readonly headers = new Map<string, string | number | readonly string[]>();
  private resolve!: (response: Response) => void;
  private settled = false;
  private written: string[] = [];
  private stream?: ReadableStreamDefaultController<Uint8Array>;
  private readonly encoder = new TextEncoder();

  constructor() {
    super();
    this.response = new Promise((resolve) => (this.resolve = resolve));
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }

  writeHead(status: number, headers: OutgoingHttpHeaders = {}): this {
    if (this.headersSent) return this;
    this.statusCode = status;
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) this.setHeader(name, value);
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
    if (this.stream) this.stream.enqueue(this.encoder.encode(chunk));
    else this.written.push(chunk);
    return true;
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

  /** The client went away: what is open ends, and 'close' tells the handler (a call in flight is cancelled). */
  destroy(): this {
    if (this.destroyed || this.writableFinished) return this;
    this.destroyed = true;
    try {
      this.stream?.close();
    } catch {
      // Already closed by the reader's cancel.
    }
    // Nobody is left to read it; the promise must still settle.
    if (!this.settled) {
      this.settled = true;
      this.resolve(new Response(null, { status: 499 }));
    }
    process.nextTick(() => this.emit('close'));
    return this;
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    const init = { status: this.statusCode, headers: this.webHeaders() };
    if (this.writableEnded) {
      const text = this.written.join('');
      this.written = [];
      this.resolve(new Response(text === '' ? null : text, init));
      this.finish();
      return;
    }
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.stream = controller;
        for (const chunk of this.written) controller.enqueue(this.encoder.encode(chunk));
        this.written = [];
      },
      cancel: () => {
        this.destroy();
      },
    });
    this.resolve(new Response(body, init));
  }

  private finish(): void {
    this.writableFinished = true;
    process.nextTick(() => this.emit('close'));
  }

  private webHeaders(): Headers {
    const out = new Headers();
    for (const [name, value] of this.headers) {
      if (CONNECTION_HEADERS.has(name)) continue;
      if (Array.isArray(value)) for (const v of value) out.append(name, String(v));
      else out.set(name, String(value));
    }
    return out;
  }
}
