import type { ServerResponse } from 'node:http';

/** Server-Sent Events framing for one response stream. */
export function startSse(res: ServerResponse, extraHeaders: Record<string, string> = {}): void {
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

export function writeSseEvent(res: ServerResponse, json: string): void {
  res.write(`event: message\ndata: ${json}\n\n`);
}

/** A comment line keeps idle intermediaries from closing a quiet stream. */
export function writeSseKeepAlive(res: ServerResponse): void {
  res.write(':\n\n');
}
