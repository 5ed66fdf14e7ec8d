import type { HttpResponse } from './http-response.js';

/** Server-Sent Events framing for one response stream. */
export function startSse(res: HttpResponse, extraHeaders: Record<string, string> = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // streamable-http.mdx: reverse proxies must not buffer the stream.
    'x-accel-buffering': 'no',
    ...extraHeaders,
  });
  res.flushHeaders();
}

export function writeSseEvent(res: HttpResponse, json: string): void {
  res.write(`event: message\ndata: ${json}\n\n`);
}

/** A comment line keeps idle intermediaries from closing a quiet stream. */
export function writeSseKeepAlive(res: HttpResponse): void {
  res.write(':\n\n');
}
