import { fetchWithinOrigin } from '../../io/fetch-within-origin.js';
import { readCappedText } from '../../io/read-capped.js';

/** One HTTP request as the Streamable HTTP client sends it: the body is always JSON text. */
export interface HttpSendInit {
  method: 'GET' | 'POST' | 'DELETE';
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string;
  /** Stops the request, and the reading of its answer, with its reason. */
  signal: AbortSignal;
  /**
   * The transport closing: stops the request and its answer as `signal` does. A sender given as
   * HttpTransportOptions.send must heed it (the transport then links no signal of its own per
   * request); fetch never sees it, as the transport folds it into `signal` for sendByFetch.
   */
  closing?: AbortSignal;
}

/**
 * What the client reads of an HTTP answer. A fetch Response gives all of it (sendByFetch); a
 * sender that speaks HTTP itself (the gateway's node:http one) gives it without building a
 * Response, Headers and a web stream per request, which cost more CPU than the exchange.
 */
export interface HttpReply {
  readonly status: number;
  readonly statusText: string;
  /** 2xx. */
  readonly ok: boolean;
  /** A response header, as Headers.get gives it (repeated ones joined with ", "), or null. */
  header(name: string): string | null;
  /** The body as a stream (an SSE answer is read as it comes); null when there is none. */
  stream(): ReadableStream<Uint8Array> | null;
  /**
   * The whole body as UTF-8 text (a leading BOM dropped, as fetch's text() does); rejects with
   * ResponseTooLargeError past `maxBytes` (a declared Content-Length over it before reading),
   * with the signal's reason on an abort, with another error when the body fails.
   */
  text(maxBytes: number): Promise<string>;
  /** Drops the body unread (the connection is not kept for it). */
  discard(): Promise<void>;
}

/** Sends one request; rejects as fetch does: the signal's reason on an abort, another error when the server is not reached. */
export type HttpSend = (url: URL, init: HttpSendInit) => Promise<HttpReply>;

/**
 * The sender every client has unless told otherwise: the given fetch (the global one by default),
 * following redirects within the server's origin only: its headers (an API key the user gave
 * for this server) and the request's body never go to a host a redirect names. A redirect
 * elsewhere is the answer, which the transport reports with its status.
 */
export function sendByFetch(fetcher: typeof fetch): HttpSend {
  return async (url, { closing: _, ...init }) => replyOf(await fetchWithinOrigin(url, init, fetcher));
}

/** A fetch Response read as an HttpReply. */
export function replyOf(response: Response): HttpReply {
  return {
    status: response.status,
    statusText: response.statusText,
    ok: response.ok,
    header: (name) => response.headers.get(name),
    stream: () => response.body,
    text: (maxBytes) => readCappedText(response, maxBytes),
    discard: async () => {
      await response.body?.cancel();
    },
  };
}
