import { setMaxListeners } from 'node:events';
import http from 'node:http';
import { replyOf, type HttpReply, type HttpSend, type HttpSendInit } from '../client/transports/http-send.js';
import { fetchWithinOrigin, REDIRECT } from '../io/fetch-within-origin.js';
import { ResponseTooLargeError } from '../io/read-capped.js';
import { readNodeCapped } from '../io/read-node-capped.js';
import { nodeHttps } from '../runtime/lazy-tls.js';

/**
 * Kept-alive connections to HTTP upstreams, shared by every mount (idle sockets do not keep the
 * process alive: the agent unrefs them while they wait). An idle one is closed after 4 s, or
 * sooner when the server's Keep-Alive header says so (undici's default): a server that closes
 * idle connections first would otherwise fail the next call sent on one.
 */
const IDLE = { keepAlive: true, timeout: 4_000 };
const httpAgent = new http.Agent(IDLE);
let httpsAgent: http.Agent | undefined;

/** The kept-alive agent for a URL's protocol (undefined: neither http nor https); https's is made, and TLS loaded, for the first https upstream. */
export function agentFor(protocol: string): http.Agent | undefined {
  if (protocol === 'http:') return httpAgent;
  if (protocol === 'https:') return (httpsAgent ??= new (nodeHttps().Agent)(IDLE));
  return undefined;
}

/** node:http's or node:https's request, for a URL's protocol. */
export function requestFor(protocol: string): typeof http.request {
  return protocol === 'https:' ? nodeHttps().request : http.request;
}
/** Statuses whose Response has no body (the Response constructor refuses one). */
export const NULL_BODY = new Set([101, 103, 204, 205, 304]);
/**
 * How the gateway's client sends its requests to HTTP upstreams: node:http with a keep-alive
 * agent, and the answer read straight from the IncomingMessage. Every relayed call is one POST;
 * through the global fetch (undici's Request, Headers, Response and a web stream per body) or
 * even node:http wrapped as a fetch (node-fetch.ts), building the WHATWG objects cost more CPU
 * than the HTTP exchange itself (bench/relay-cpu.mjs). What it does as fetch would: redirects
 * are followed (by the global fetch, which knows the rules), within the upstream's origin only; an unreachable server rejects with a
 * TypeError whose cause carries the code; an abort rejects with the signal's reason, and fails
 * a body being read with it.
 */
export const nodeSend: HttpSend = (url, init) => {
  const agent = agentFor(url.protocol);
  if (!agent) return fetchWithinOrigin(url, init).then(replyOf);
  return exchange(url, agent, init).then((reply) =>
    reply.status >= 300 && REDIRECT.has(reply.status) && reply.header('location') !== null
      ? reply.discard().then(() => fetchWithinOrigin(url, init).then(replyOf))
      : reply,
  );
};

/** Where a URL's requests go, as node:http's own urlToHttpOptions gives it, and the headers node:http would add. */
interface Target {
  href: string;
  options: http.RequestOptions;
  host: string;
  /** From credentials in the URL, as node:http sends them when no Authorization header is given. */
  authorization?: string;
}

/** Each URL's target, made once (the client sends every request to the same URL object); remade if the URL changed. */
const targets = new WeakMap<URL, Target>();

function targetOf(url: URL): Target {
  const known = targets.get(url);
  if (known?.href === url.href) return known;
  const { hostname, port, username, password } = url;
  const options: http.RequestOptions = {
    protocol: url.protocol,
    hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
    path: `${url.pathname}${url.search}`,
    ...(port !== '' ? { port: Number(port) } : {}),
  };
  const credentials = username || password ? `${decodeURIComponent(username)}:${decodeURIComponent(password)}` : undefined;
  const target: Target = {
    href: url.href,
    options,
    host: url.host,
    ...(credentials !== undefined ? { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } : {}),
  };
  targets.set(url, target);
  return target;
}

/**
 * The request's headers as the flat list node:http writes as given (each name and value still
 * validated), where a headers object is copied header by header first: with the Host and
 * Authorization node:http adds from the URL, and the body's length.
 */
function headerList(target: Target, headers: Record<string, string>, body: string | undefined): string[] {
  const list: string[] = [];
  for (const name in headers) list.push(name, headers[name]);
  if (headers.host === undefined) list.push('host', target.host);
  if (target.authorization !== undefined && headers.authorization === undefined) list.push('authorization', target.authorization);
  if (body !== undefined) list.push('content-length', String(Buffer.byteLength(body)));
  return list;
}

/** The closing signals already allowed any number of listeners. */
const heard = new WeakSet<AbortSignal>();

function exchange(url: URL, agent: http.Agent, init: HttpSendInit): Promise<HttpReply> {
  const { signal, body } = init;
  const closing = init.closing !== signal ? init.closing : undefined;
  // Every request in flight listens to the transport's closing: as many as there are calls, not a leak.
  if (closing && !heard.has(closing)) {
    heard.add(closing);
    setMaxListeners(0, closing);
  }
  if (signal.aborted) return Promise.reject(signal.reason);
  if (closing?.aborted) return Promise.reject(closing.reason);
  const target = targetOf(url);
  const request = requestFor(url.protocol);
  return new Promise((resolve, reject) => {
    const req = request({ ...target.options, method: init.method, headers: headerList(target, init.headers, body), agent });
    let res: http.IncomingMessage | undefined;
    // The body being read fails with the abort's reason, as fetch's does.
    const stop = (reason: unknown) => (res ? res.destroy(reason as Error) : req.destroy(reason as Error));
    const onAbort = () => stop(signal.reason);
    const onClosing = () => stop(closing?.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    closing?.addEventListener('abort', onClosing, { once: true });
    const unlisten = () => {
      signal.removeEventListener('abort', onAbort);
      closing?.removeEventListener('abort', onClosing);
    };
    req.on('error', (err) => {
      unlisten();
      reject(signal.aborted ? signal.reason : closing?.aborted ? closing.reason : new TypeError('fetch failed', { cause: err }));
    });
    req.on('response', (response: http.IncomingMessage) => {
      res = response;
      // The body outlives this promise: an abort while it is read destroys it.
      response.once('close', unlisten);
      resolve(new NodeReply(response));
    });
    req.end(body);
  });
}

/** An upstream's answer, read from node:http without a Response. */
class NodeReply implements HttpReply {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  private body?: ReadableStream<Uint8Array> | null;

  constructor(private readonly res: http.IncomingMessage) {
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status <= 299;
  }

  /** As Headers.get: every value of the name, trimmed, joined with ", " (node's own res.headers keeps only the first of some). */
  header(name: string): string | null {
    const raw = this.res.rawHeaders;
    const wanted = name.toLowerCase();
    let value: string | null = null;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (raw[i].length !== wanted.length || raw[i].toLowerCase() !== wanted) continue;
      const one = raw[i + 1].replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
      value = value === null ? one : `${value}, ${one}`;
    }
    return value;
  }

  stream(): ReadableStream<Uint8Array> | null {
    if (this.body === undefined) this.body = NULL_BODY.has(this.status) ? (this.res.resume(), null) : webBody(this.res);
    return this.body;
  }

  text(maxBytes: number): Promise<string> {
    const res = this.res;
    const declared = Number(this.header('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      res.destroy();
      return Promise.reject(new ResponseTooLargeError(maxBytes));
    }
    if (NULL_BODY.has(this.status)) {
      res.resume();
      return Promise.resolve('');
    }
    return readNodeCapped(res, maxBytes, () => new ResponseTooLargeError(maxBytes), prematureClose).then((body) => {
      const text = body.toString('utf8');
      // fetch's text() decodes as TextDecoder does: a leading byte order mark is not part of the text.
      return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    });
  }

  discard(): Promise<void> {
    const res = this.res;
    // A body already received (a 202's empty one) is read to its end, which gives the connection back for the next request; any other is cut.
    if (!res.complete || res.readableEnded) {
      if (!res.complete) res.destroy();
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      res.once('end', resolve).once('close', resolve).resume();
    });
  }
}

/**
 * The response body as a web stream, as Readable.toWeb makes it (each chunk copied, paused while
 * the reader is behind, a close before the end an AbortError) without its general adapter, whose
 * set-up cost more CPU than the rest of a small relayed answer's reading.
 */
export function webBody(res: http.IncomingMessage): ReadableStream<Uint8Array> {
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
