import { encodeError } from '../jsonrpc/encode.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { INCOMING_REQUESTS, messageKind, parseJson } from '../jsonrpc/parse.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../jsonrpc/types.js';
import { authInfoOf, callerFrom, principalOf, type Caller } from '../policy/auth/caller.js';
import type { AuthInfo } from '../policy/auth/principal.js';
import { Method } from '../protocol/methods.js';
import type { Dispatcher } from './dispatcher.js';
import { Peer } from './peer.js';
import type { LegacySession } from './legacy-session.js';
import type { Exchange, Reply } from './exchange.js';

/** Open `subscriptions/listen` requests one connection may hold, by default. */
export const DEFAULT_MAX_LISTEN_STREAMS = 32;

/** How a transport opens a connection: `server.connect(options)`. */
export interface ConnectOptions {
  /** What carries it ('stdio', 'http', 'websocket', …): a label for logs and diagnostics. */
  transport: string;
  /**
   * The connection's own channel to the client, given each message the
   * server sends already serialized (one JSON-RPC message, no newline):
   * list-change and resource-update notifications, legacy task status; and,
   * for requests received without a `send` of their own, their progress and
   * log notifications and the server-to-client requests they make (legacy
   * elicitation, sampling, roots). Must not throw. Without it, messages that
   * no request carries are dropped.
   */
  send?(message: string): void;
  /**
   * Who is on the other end, as the transport verified it: a principal id
   * (a Caller with that `id`, method 'transport', no scopes), or a Caller
   * (its `scopes`, when present, are enforced; its `tenant` keeps its state
   * apart from other tenants'). `ctx.caller` in handlers; rate limits,
   * audit records, stored results and task owners key on it. Absent: the
   * anonymous caller.
   */
  caller?: string | Caller;
  /** Open `subscriptions/listen` requests at most (default 32); one more is answered with an error. */
  maxListenStreams?: number;
}

/** Facts about one inbound message that the transport knows and the message does not carry. */
export interface ReceiveOptions {
  /**
   * This request's own channel (an HTTP response stream): its progress and
   * log notifications and the server-to-client requests it makes go here
   * instead of the connection's `send`. A connection whose requests bring
   * their own channel keeps its `send` for what no request carries; a legacy
   * background task then asks the client for input on the stream of the
   * client's next `tasks/result` request.
   */
  send?(message: string): void;
  /** Who sent this message, when the transport verifies every message (HTTP); the connection's `caller` otherwise. Same principal, please: a legacy session belongs to one caller. */
  caller?: string | Caller;
  /** HTTP request headers, lower-cased: modern requests' mirrored headers (`Mcp-Param-*`) are checked against them. */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** The peer's network address and port (HTTP: the socket's), for telemetry (`client.address`, `client.port`). */
  remoteAddress?: string;
  remotePort?: number;
  /** Size of the whole message in bytes, when known (bounds the arguments without measuring them). A text message is bounded by its length. */
  messageBytes?: number;
  /** Aborts when the client stops waiting for this request's answer (e.g. its response stream closed): the request is cancelled and gets no answer. */
  signal?: AbortSignal;
  /**
   * The same as `signal`, without allocating one per request: called with
   * the reason when the client stops waiting; returns the unsubscribe.
   * Only requests that can be cancelled subscribe.
   */
  onClose?(listener: (reason: Error) => void): () => void;
}

export type { Reply };

/**
 * One client connected to a ToolServer, whatever carries its messages (see
 * docs/server.md#write-your-own-transport). A message-stream transport (stdio, a
 * WebSocket) opens one per client and writes both `send`'s messages and
 * `receive`'s replies on it; Streamable HTTP opens one per legacy session
 * and one per modern request.
 */
export interface ServerConnection {
  /** What carries it, as given to `connect`. */
  readonly transport: string;
  /**
   * Hands the server one inbound message: JSON text, or a value already
   * parsed from it (it is checked either way). A request returns a Promise
   * of its reply, for the transport to send; it never rejects, and resolves
   * undefined when the request was cancelled (no answer is due). Requests
   * run concurrently; replies resolve in completion order. A notification
   * (`notifications/cancelled`, `notifications/initialized`) or a response
   * to a server-to-client request returns undefined. So does a message that
   * is not JSON-RPC: its error (-32700 or -32600, with the id when it could
   * be read) is sent at once on `options.send`, else the connection's `send`.
   */
  receive(message: string | JsonRpcMessage, options?: ReceiveOptions): Promise<Reply | undefined> | undefined;
  /** The version a legacy `initialize` handshake agreed on this connection; undefined before one (and for modern, stateless clients). */
  readonly protocolVersion: string | undefined;
  /** Requests received and not yet answered (those that can be cancelled: every tool call and long-lived request). */
  readonly inFlight: number;
  /** What the legacy handshake established on this connection (a copy), to keep in shared session records; undefined before one. */
  readonly legacySession: LegacySession | undefined;
  /**
   * Resumes a legacy session another instance initialized (docs/deployment.md): the connection
   * serves its requests as if it had seen the handshake. Throws if it is already initialized.
   */
  resumeLegacy(session: LegacySession): void;
  /** The client is gone: requests in flight are aborted (their answers dropped), server-to-client requests fail, list-change pushes stop. Idempotent. */
  close(reason?: string): void;
}

const NOTHING_TO_SEND = () => {};

/**
 * @internal The ServerConnection `ToolServer.connect` returns: a Peer (what the
 * dispatcher keeps per client) behind the one public face transports use,
 * so none of them reaches into the dispatcher (docs/server.md#write-your-own-transport).
 */
export class Connection implements ServerConnection {
  private readonly peer: Peer;
  private readonly send: (message: string) => void;
  private readonly caller: CallerFacts;
  private readonly maxListenStreams: number;
  private listening = 0;
  private closed = false;

  constructor(
    private readonly dispatcher: Dispatcher,
    options: ConnectOptions,
  ) {
    if (typeof options?.transport !== 'string') throw new TypeError('connect: "transport" must be a string (a label such as "websocket")');
    this.peer = new Peer(options.transport);
    this.peer.push = options.send;
    this.send = options.send ?? NOTHING_TO_SEND;
    this.caller = callerFacts(options.caller);
    this.maxListenStreams = options.maxListenStreams ?? DEFAULT_MAX_LISTEN_STREAMS;
  }

  get transport(): string {
    return this.peer.transport;
  }

  get protocolVersion(): string | undefined {
    return this.peer.legacy?.protocolVersion;
  }

  get inFlight(): number {
    return this.peer.inflight.size;
  }

  get legacySession(): LegacySession | undefined {
    return this.peer.legacy ? { ...this.peer.legacy } : undefined;
  }

  resumeLegacy(session: LegacySession): void {
    this.dispatcher.resumeLegacy(this.peer, session, this.caller.caller);
  }

  receive(message: string | JsonRpcMessage, options?: ReceiveOptions): Promise<Reply | undefined> | undefined {
    let value: unknown;
    let kind: 'request' | 'notification' | 'response';
    try {
      value = typeof message === 'string' ? parseJson(message, INCOMING_REQUESTS) : message;
      kind = messageKind(value);
    } catch (err) {
      // Not a request one could answer in turn (it may not be a request at all): said at once, on the channel.
      (options?.send ?? this.send)(unreadable(err));
      return undefined;
    }
    if (kind === 'request') {
      const request = value as JsonRpcRequest;
      const exchange = this.exchangeFor(message, options);
      if (request.method === Method.subscriptionsListen) return this.listen(request, exchange);
      return this.dispatcher.handleRequest(request, exchange);
    }
    if (kind === 'notification') {
      const { caller } = options?.caller === undefined ? this.caller : callerFacts(options.caller);
      this.dispatcher.handleNotification(value as JsonRpcNotification, this.peer, caller);
    }
    // The client answering a server-to-client request (legacy elicitation, sampling, roots).
    else this.peer.handleResponse(value as JsonRpcResponse);
    return undefined;
  }

  close(reason = 'connection closed'): void {
    if (this.closed) return;
    this.closed = true;
    this.peer.close(reason);
  }

  /** One request's exchange: the same object count as before connections existed (one per request). */
  private exchangeFor(message: string | JsonRpcMessage, options: ReceiveOptions | undefined): Exchange {
    if (!options) {
      const { caller, principal, auth } = this.caller;
      return { peer: this.peer, notify: this.send, caller, principal, auth, messageBytes: typeof message === 'string' ? message.length * 3 : undefined };
    }
    if (options.send) this.peer.requestChannels = true;
    const { caller, principal, auth } = options.caller === undefined ? this.caller : callerFacts(options.caller);
    return {
      peer: this.peer,
      notify: options.send ?? this.send,
      headers: options.headers,
      remoteAddress: options.remoteAddress,
      remotePort: options.remotePort,
      caller,
      principal,
      auth,
      // A UTF-16 code unit is at most 3 bytes of UTF-8: a bound, not a measurement.
      messageBytes: options.messageBytes ?? (typeof message === 'string' ? message.length * 3 : undefined),
      onClose: options.onClose ?? (options.signal ? onAbort(options.signal) : undefined),
    };
  }

  /**
   * A `subscriptions/listen` request: served like any other while a slot is
   * free (each open subscription holds server state for as long as the
   * client likes). At the cap it is looked at once more a turn later: a
   * subscription cancelled just before (same read) frees its slot only once
   * its request has settled, a few promise reactions on.
   */
  private listen(request: JsonRpcRequest, exchange: Exchange, retried = false): Promise<Reply | undefined> {
    if (this.listening >= this.maxListenStreams) {
      if (!retried) return new Promise((resolve) => setImmediate(() => resolve(this.listen(request, exchange, true))));
      const message = `Too Many Requests: this connection has ${this.maxListenStreams} open streams (subscriptions/listen), as many as it may; cancel one first`;
      return Promise.resolve({ json: encodeError(request.id, new RpcError(ErrorCode.InternalError, message)), status: 429 });
    }
    this.listening++;
    const settled = (reply: Reply | undefined) => {
      this.listening--;
      return reply;
    };
    return this.dispatcher.handleRequest(request, exchange).then(settled);
  }
}

/** An exchange's caller, and the two older fields derived from it. */
interface CallerFacts {
  caller: Caller;
  /** `caller.id`, undefined for the anonymous caller. */
  principal: string | undefined;
  /** `caller` when the transport gave an object (a bare id never carried scopes or claims: handlers saw no `auth`). */
  auth: AuthInfo | undefined;
}

function callerFacts(given: string | Caller | undefined): CallerFacts {
  const caller = callerFrom(given);
  return { caller, principal: principalOf(caller), auth: authInfoOf(caller) };
}

function onAbort(signal: AbortSignal): (listener: (reason: Error) => void) => () => void {
  return (listener) => {
    const aborted = () => listener(signal.reason instanceof Error ? signal.reason : new Error('the client stopped waiting'));
    if (signal.aborted) {
      queueMicrotask(aborted);
      return () => {};
    }
    signal.addEventListener('abort', aborted, { once: true });
    return () => signal.removeEventListener('abort', aborted);
  };
}

/** The error answering a message that is not JSON-RPC (with its id when that could be read). */
function unreadable(err: unknown): string {
  const e = err instanceof RpcError ? err : new RpcError(ErrorCode.ParseError, 'Parse error');
  const id = (e.data as { id?: string | number } | undefined)?.id;
  return encodeError(id, new RpcError(e.code, e.message));
}
