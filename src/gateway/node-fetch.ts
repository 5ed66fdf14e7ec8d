import type http from 'node:http';
import { fetchWithinOrigin, REDIRECT } from '../io/fetch-within-origin.js';
import { agentFor, NULL_BODY, requestFor, webBody } from './node-send.js';

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
  const agent = url ? agentFor(url.protocol) : undefined;
  const body = init.body ?? undefined;
  if (!url || !agent || (body !== undefined && typeof body !== 'string') || (init.redirect !== undefined && init.redirect !== 'follow'))
    return fetch(input, init);
  return send(url, agent, init, body).then((response) =>
    // Followed as fetch follows them, within the upstream's origin (the body is a string: it can be sent again).
    response.status >= 300 && REDIRECT.has(response.status) && response.headers.has('location')
      ? discardThen(response, () => fetchWithinOrigin(url, init))
      : response,
  );
};

function send(url: URL, agent: http.Agent, init: RequestInit, body: string | undefined): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const headers = headerRecord(init.headers);
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  const request = requestFor(url.protocol);
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
