import { ConnectionError, ProtocolViolationError, ToolClientError } from '../errors.js';
import { InboundRequests } from '../inbound-requests.js';
import type { ClientTransport, IncomingResponse, SendOptions, ServerRequestHandler, WireContext } from '../transport.js';
import { classifyMessage, type ParsedMessage } from '../../jsonrpc/parse.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../../jsonrpc/types.js';
import { encodeHeaderValue, NAMED_PARAM, SESSION_HEADER } from '../../protocol/header-params.js';
import { Method } from '../../protocol/methods.js';
import { plainFetch } from '../../io/fetch.js';
import { ResponseTooLargeError } from '../../io/read-capped.js';
import { errorDetail } from './error-detail.js';
import { LegacyListenStream } from './http-listen-stream.js';
import { sendByFetch, type HttpReply, type HttpSend } from './http-send.js';
import { resumableSseEvents } from './sse-resume.js';

/** A Streamable HTTP endpoint. */
export interface HttpTarget {
  url: string | URL;
  /** Sent with every request (e.g. Authorization). */
  headers?: Record<string, string>;
  /** Replaces the global fetch (proxies, tests). */
  fetch?: typeof fetch;
}

export interface HttpTransportOptions {
  maxMessageBytes?: number;
  onWarning?: (message: string) => void;
  /** @internal Sends each request in place of `target.fetch` (the gateway's node:http sender, src/gateway/node-send.ts). */
  send?: HttpSend;
}

/**
 * Streamable HTTP client: one POST per message, answered with JSON or with an
 * SSE stream scoped to the request. Modern requests mirror the body into
 * MCP-Protocol-Version, Mcp-Method, Mcp-Name and Mcp-Param-* headers; legacy
 * ones carry the session id the server gave at `initialize`.
 */
export class HttpClientTransport implements ClientTransport {
  readonly kind = 'http' as const;
  onNotification?: (notification: JsonRpcNotification) => void;
  /** Requests the server sends on a response stream; each answer is POSTed back (with the session id, in a legacy session). */
  onServerRequest?: ServerRequestHandler;
  private readonly url: URL;
  /** Sends each HTTP request: by `target.fetch` (the global fetch by default), or the sender given in the options. */
  private readonly send: HttpSend;
  /** The sender stops requests on close() itself (HttpSendInit.closing): no signal is linked per request. */
  private readonly sendHeedsClosing: boolean;
  private readonly limit: number;
  private readonly warn: (message: string) => void;
  private sessionId?: string;
  readonly serverAddress: { host: string; port: number };
  private lastWire?: WireContext;
  /** Aborts every request in flight when the transport closes. */
  private readonly closing = new AbortController();
  /** The requests in flight with a caller's signal: close() aborts them with its reason. */
  private readonly linked = new Set<AbortController>();
  /** The legacy session's GET stream, once `notifications/initialized` is sent. */
  private listener?: LegacyListenStream;
  /** tools/call requests in flight: a server request on the GET stream belongs to the only one, if there is one. */
  private readonly calls = new Set<JsonRpcRequest>();

  constructor(
    private readonly target: HttpTarget,
    options: HttpTransportOptions = {},
  ) {
    this.url = new URL(target.url);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') throw new TypeError('the server URL must be http:// or https://');
    // IPv6 literals without their brackets, as server.address wants them.
    this.serverAddress = { host: this.url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(this.url.port) || (this.url.protocol === 'https:' ? 443 : 80) };
    this.send = options.send ?? sendByFetch(plainFetch(target.fetch));
    this.sendHeedsClosing = options.send !== undefined;
    this.limit = options.maxMessageBytes ?? 16 * 1024 * 1024;
    this.warn = options.onWarning ?? (() => {});
  }

  get legacySessionId(): string | undefined {
    return this.sessionId;
  }

  async request(request: JsonRpcRequest, options: SendOptions): Promise<IncomingResponse> {
    const wire = options.wire;
    // The session this request goes out with: a 404 ends that one, not a newer one made meanwhile.
    const sentSession = wire.era === 'legacy' ? this.sessionId : undefined;
    if (!options.signal) return this.track(request, { ...options, signal: this.closing.signal }, sentSession);
    if (this.closing.signal.aborted) throw this.closing.signal.reason;
    // The sender hears close() itself: the caller's signal goes as it is (an AbortSignal costs µs to make).
    if (this.sendHeedsClosing) return this.track(request, options as SendOptions & { signal: AbortSignal }, sentSession);
    // Aborted by the caller, or by close() (which aborts every request in flight): one controller
    // and one listener, where AbortSignal.any cost several times the CPU per request.
    const caller = options.signal;
    const link = new AbortController();
    const onAbort = () => link.abort(caller.reason);
    if (caller.aborted) onAbort();
    else caller.addEventListener('abort', onAbort, { once: true });
    this.linked.add(link);
    try {
      return await this.track(request, { ...options, signal: link.signal }, sentSession);
    } finally {
      this.linked.delete(link);
      caller.removeEventListener('abort', onAbort);
    }
  }

  private async track(request: JsonRpcRequest, options: SendOptions & { signal: AbortSignal }, sentSession: string | undefined): Promise<IncomingResponse> {
    if (request.method !== Method.toolsCall) return this.exchange(request, options.wire, options, options.signal, sentSession);
    this.calls.add(request);
    try {
      return await this.exchange(request, options.wire, options, options.signal, sentSession);
    } finally {
      this.calls.delete(request);
    }
  }

  private async exchange(
    request: JsonRpcRequest,
    wire: WireContext,
    options: SendOptions,
    signal: AbortSignal,
    sentSession: string | undefined,
  ): Promise<IncomingResponse> {
    const response = await this.post(request, wire, signal, options.headers);
    if (request.method === Method.initialize) {
      const session = response.header(SESSION_HEADER);
      // 2025-11-25 transports: a session id is visible ASCII only.
      this.sessionId = session && /^[\x21-\x7E]{1,512}$/.test(session) ? session : undefined;
    }
    if (response.status === 404 && sentSession !== undefined) {
      if (this.sessionId === sentSession) this.sessionId = undefined;
      await response.discard();
      throw new ConnectionError('the server ended the session (HTTP 404)', 'session-expired', { httpStatus: 404 });
    }
    const stream = eventStreamOf(response);
    if (stream) return this.readStream(stream, request, { ...options, signal: this.withClosing(signal) });
    let text: string;
    try {
      text = await response.text(this.limit);
    } catch (err) {
      this.throwIfStopped(signal);
      if (err instanceof ResponseTooLargeError) throw new ProtocolViolationError(`the server's response is larger than the ${this.limit}-byte limit`);
      throw new ConnectionError(`reading the response to ${request.method} failed: ${(err as Error).message}`, 'network', { cause: err });
    }
    let message: ParsedMessage | undefined;
    try {
      message = classifyMessage(JSON.parse(text));
    } catch {
      message = undefined;
    }
    if (message?.kind === 'response') {
      const id = message.message.id;
      if (id !== request.id && !(id === null && 'error' in message.message)) {
        throw new ProtocolViolationError(`the server answered request ${request.id} with a response for id ${JSON.stringify(id)}`);
      }
      return { message: message.message, httpStatus: response.status };
    }
    if (!response.ok) {
      const detail = errorDetail(text);
      throw new ConnectionError(`HTTP ${response.status} ${response.statusText}${detail ? `: ${detail}` : ''}`.trim(), 'http', {
        httpStatus: response.status,
        ...(detail ? { detail } : {}),
      });
    }
    throw new ProtocolViolationError(
      `the server answered ${request.method} with HTTP ${response.status} but no JSON-RPC response (content-type ${JSON.stringify(response.header('content-type') ?? '')})`,
    );
  }

  async notify(notification: JsonRpcNotification, wire: WireContext): Promise<void> {
    const response = await this.post(notification, wire, AbortSignal.timeout(10_000));
    await response.discard();
    if (!response.ok) throw new ConnectionError(`the server refused ${notification.method} (HTTP ${response.status})`, 'http', { httpStatus: response.status });
    if (notification.method === Method.initialized && wire.era === 'legacy') await this.listen(wire);
  }

  /**
   * Opens the legacy session's GET stream (2025-11-25 "Listening for Messages
   * from the Server"), where a server sends the requests and notifications that
   * belong to no request of ours. A server without one (405) is fine.
   */
  private async listen(wire: WireContext): Promise<void> {
    this.listener?.close();
    const listener = new LegacyListenStream({
      open: (lastEventId, signal) => this.openStream(wire, lastEventId, signal),
      maxEventBytes: this.limit,
      onNotification: (n) => this.onNotification?.(n),
      onRequest: () => this.onServerRequest,
      relatedCall: () => (this.calls.size === 1 ? this.calls.values().next().value : undefined),
      answer: (response) => this.postAnswer(response, wire),
      warn: this.warn,
    });
    this.listener = listener;
    await listener.start();
  }

  /**
   * An SSE stream by GET: the session's own (no `lastEventId`), or a dropped one
   * resumed after its last event (2025-11-25 "Resumability and Redelivery").
   * Undefined when the server offers none (405, or no event stream).
   */
  private async openStream(wire: WireContext, lastEventId: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | undefined> {
    if (this.closing.signal.aborted) return undefined;
    const headers = this.baseHeaders();
    headers.accept = 'text/event-stream';
    if (wire.protocolVersion) headers['mcp-protocol-version'] = wire.protocolVersion;
    if (this.sessionId) headers[SESSION_HEADER] = this.sessionId;
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    let response: HttpReply;
    try {
      response = await this.send(this.url, { method: 'GET', headers, signal: AbortSignal.any([signal, this.closing.signal]) });
    } catch (err) {
      this.throwIfStopped(signal);
      if (err instanceof ToolClientError) throw err; // e.g. an authorizing fetch's AuthorizationError
      throw new ConnectionError(`could not reach ${this.url.origin}: ${(err as Error).message}`, 'network', { cause: err });
    }
    const stream = eventStreamOf(response);
    if (stream) return stream;
    await response.discard();
    return undefined;
  }

  /** Ends a legacy session with DELETE (2025-11-25 "Session Management"); 405 means the server keeps it. */
  async close(): Promise<void> {
    if (!this.closing.signal.aborted) {
      this.closing.abort(new ConnectionError('the connection is closed', 'closed'));
      for (const link of this.linked) link.abort(this.closing.signal.reason);
    }
    this.listener?.close();
    if (this.sessionId === undefined) return;
    const headers = this.baseHeaders();
    headers[SESSION_HEADER] = this.sessionId;
    if (this.lastWire?.protocolVersion) headers['mcp-protocol-version'] = this.lastWire.protocolVersion;
    this.sessionId = undefined;
    try {
      const response = await this.send(this.url, { method: 'DELETE', headers, signal: AbortSignal.timeout(2_000) });
      await response.discard();
    } catch {
      // The session expires on its own; closing must not fail because the server is gone.
    }
  }

  private async post(message: JsonRpcMessage, wire: WireContext, signal: AbortSignal, extra?: Record<string, string>): Promise<HttpReply> {
    if (this.closing.signal.aborted) throw this.closing.signal.reason;
    this.lastWire = wire;
    const headers = this.baseHeaders();
    headers['content-type'] = 'application/json';
    if (wire.protocolVersion) headers['mcp-protocol-version'] = wire.protocolVersion;
    if (wire.era === 'modern' && 'method' in message) {
      headers['mcp-method'] = message.method;
      const field = NAMED_PARAM[message.method];
      const value = field ? message.params?.[field] : undefined;
      if (typeof value === 'string') headers['mcp-name'] = encodeHeaderValue(value);
      Object.assign(headers, extra);
    }
    if (wire.era === 'legacy' && this.sessionId) headers[SESSION_HEADER] = this.sessionId;
    try {
      return await this.send(this.url, { method: 'POST', headers, body: JSON.stringify(message), signal, closing: this.closing.signal });
    } catch (err) {
      this.throwIfStopped(signal);
      // A fetch that authorizes (OAuthClient.fetch) fails with its own typed error: keep it.
      if (err instanceof ToolClientError) throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err as Error).message;
      throw new ConnectionError(`could not reach ${this.url.origin}: ${why}`, 'network', { cause: err });
    }
  }

  /** Throws why a request stopped: its signal's reason, or close()'s (which a sender that heeds closing hears apart). */
  private throwIfStopped(signal: AbortSignal): void {
    if (signal.aborted) throw signal.reason;
    if (this.closing.signal.aborted) throw this.closing.signal.reason;
  }

  /** A request's signal that close() aborts too: it already is, unless the sender heeds closing itself (then only an SSE answer, read at length, needs one). */
  private withClosing(signal: AbortSignal): AbortSignal {
    return this.sendHeedsClosing && signal !== this.closing.signal ? AbortSignal.any([signal, this.closing.signal]) : signal;
  }

  private baseHeaders(): Record<string, string> {
    const headers: Record<string, string> = {};
    const given = this.target.headers;
    if (given) for (const key of Object.keys(given)) headers[key.toLowerCase()] = given[key];
    headers.accept = 'application/json, text/event-stream';
    return headers;
  }

  /** Reads the request's SSE stream up to its response; notifications on the way go to the caller. */
  private async readStream(body: ReadableStream<Uint8Array>, request: JsonRpcRequest, options: SendOptions): Promise<IncomingResponse> {
    const wire = options.wire;
    // A legacy stream that drops before its response is resumed by GET with Last-Event-ID; modern streams are not resumable.
    const events = resumableSseEvents(body, {
      maxEventBytes: this.limit,
      signal: options.signal ?? this.closing.signal,
      reopen: wire.era === 'legacy' ? (lastEventId, signal) => this.openStream(wire, lastEventId, signal) : undefined,
    });
    // Requests the server sends on this stream belong to `request`, and end with it (made on first use).
    let inbound: InboundRequests | undefined;
    let scope: AbortController | undefined;
    try {
      for await (const event of events) {
        // An event with empty data carries no message: the server primes the stream for resumption (2025-11-25 transports).
        if (event.event !== 'message' || event.data.trim() === '') continue;
        let parsed: ParsedMessage;
        try {
          parsed = classifyMessage(JSON.parse(event.data));
        } catch (err) {
          this.warn(`ignored an invalid message on the response stream: ${(err as Error).message}`);
          continue;
        }
        if (parsed.kind === 'notification') {
          if (!inbound?.cancelled(parsed.message)) options.onNotification?.(parsed.message);
        } else if (parsed.kind === 'request') {
          inbound ??= new InboundRequests((response) => this.postAnswer(response, options.wire), this.warn);
          scope ??= new AbortController();
          inbound.accept(parsed.message, this.onServerRequest, scope.signal, request);
        } else if (parsed.message.id === request.id) {
          return { message: parsed.message, httpStatus: 200 };
        } else {
          this.warn(`ignored a response for another request (id ${JSON.stringify(parsed.message.id)}) on the stream of request ${request.id}`);
        }
      }
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (err instanceof ProtocolViolationError) throw err;
      throw new ConnectionError(`the response stream of ${request.method} failed: ${(err as Error).message}`, 'network', { cause: err });
    } finally {
      scope?.abort(new Error(`${request.method} is over`));
      await events.return(undefined).catch(() => {}); // closes the stream (modern cancellation when early)
    }
    throw new ConnectionError(`the server closed the response stream of ${request.method} without answering`, 'network');
  }

  /** Answers a server request with a POST of its own (streamable-http.mdx: responses are POSTed like any message). */
  private async postAnswer(response: JsonRpcMessage, wire: WireContext): Promise<void> {
    if (this.closing.signal.aborted) return; // closed while answering: the session is gone, nothing waits for it
    const reply = await this.post(response, wire, AbortSignal.timeout(10_000));
    await reply.discard();
    if (!reply.ok) throw new ConnectionError(`the server refused the answer (HTTP ${reply.status})`, 'http', { httpStatus: reply.status });
  }
}

/** The body of a successful SSE answer (text/event-stream), to read as it comes; null for any other answer. */
function eventStreamOf(reply: HttpReply): ReadableStream<Uint8Array> | null {
  return reply.ok && /^text\/event-stream/i.test(reply.header('content-type') ?? '') ? reply.stream() : null;
}
