import http from 'node:http';
import https from 'node:https';

/**
 * Kept-alive connections to HTTP upstreams, shared by every mount (idle sockets do not keep the
 * process alive: the agent unrefs them while they wait). An idle one is closed after 4 s, or
 * sooner when the server's Keep-Alive header says so (undici's default): a server that closes
 * idle connections first would otherwise fail the next call sent on one.
 */
const IDLE = { keepAlive: true, timeout: 4_000 };
const agents = { 'http:': new http.Agent(IDLE), 'https:': new https.Agent(IDLE) };
/** Statuses whose Response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);

/**
 * The fetch a gateway speaks to its HTTP upstreams with: the same Request-in, Response-out contract
 * as the global fetch, on node:http with a keep-alive agent. Every relayed call is one POST, and
 * the global fetch (undici's WHATWG layers: Request, body extraction, cloned headers, a stream per
 * body) cost several times the CPU of node:http per request: on a loaded machine, that CPU was most
 * of the gateway's added latency (bench/gateway.mjs). What it cannot do as the global fetch would
 * goes to the global fetch: a Request object, a body that is not a string, a redirect to follow.
 * Failures to reach the server reject as fetch's do (a TypeError whose cause carries the code).
 */
export const nodeFetch: typeof fetch = (input, init = {}) => {
  const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : undefined;
  const agent = url ? agents[url.protocol as keyof typeof agents] : undefined;
  const body = init.body ?? undefined;
  if (!url || !agent || (body !== undefined && typeof body !== 'string') || (init.redirect !== undefined && init.redirect !== 'follow'))
    return fetch(input, init);
  return send(url, agent, init, body).then((response) =>
    // Followed as fetch follows them (the body is a string: it can be sent again).
    response.status >= 300 && REDIRECT.has(response.status) && response.headers.has('location') ? discardThen(response, () => fetch(input, init)) : response,
  );
};

function send(url: URL, agent: http.Agent, init: RequestInit, body: string | undefined): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const headers = headerRecord(init.headers);
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  const request = (url.protocol === 'https:' ? https : http).request;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers, agent });
    let res: http.IncomingMessage | undefined;
    // The body being read fails with the abort's reason, as fetch's does.
    const onAbort = () => (res ? res.destroy(signal?.reason) : req.destroy(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: err }));
    });
    req.on('response', (response) => {
      res = response;
      // The body stream outlives this promise: an abort while it is read destroys it (fetch's behaviour).
      res.once('close', () => signal?.removeEventListener('abort', onAbort));
      const status = res.statusCode ?? 0;
      const responseHeaders = new Headers();
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
      const stream = NULL_BODY.has(status) ? (res.resume(), null) : webBody(res);
      try {
        resolve(new Response(stream, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
      } catch (err) {
        res.destroy();
        reject(new TypeError('fetch failed', { cause: err }));
      }
    });
    req.end(body);
  });
}

/**
 * The response body as a web stream, as Readable.toWeb makes it (each chunk copied, paused while
 * the reader is behind, a close before the end an AbortError) without its general adapter, whose
 * set-up cost more CPU than the rest of a small relayed answer's reading.
 */
function webBody(res: http.IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const settle = (err?: unknown) => {
          if (settled) return;
          settled = true;
          if (err === undefined) controller.close();
          else controller.error(err);
        };
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          controller.enqueue(new Uint8Array(chunk));
          if ((controller.desiredSize ?? 1) <= 0) res.pause();
        });
        res.once('end', () => settle());
        res.once('error', (err) => settle(err));
        // Checked before the error is built: building one captures a stack, on every answer otherwise.
        res.once('close', () => settled || settle(prematureClose()));
      },
      pull() {
        res.resume();
      },
      cancel(reason) {
        settled = true;
        res.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    { highWaterMark: 16 },
  );
}

/** What Readable.toWeb errors a stream with when its source closes before its end. */
function prematureClose(): Error {
  const err = new Error('The operation was aborted', { cause: Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }) });
  return Object.assign(err, { name: 'AbortError', code: 'ABORT_ERR' });
}

function headerRecord(given: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!given) return out;
  if (given instanceof Headers || Array.isArray(given)) for (const [k, v] of given instanceof Headers ? given.entries() : given) out[k.toLowerCase()] = v;
  else for (const [k, v] of Object.entries(given)) out[k.toLowerCase()] = v;
  return out;
}

async function discardThen(response: Response, then: () => Promise<Response>): Promise<Response> {
  await response.body?.cancel().catch(() => {});
  return then();
}
