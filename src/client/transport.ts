import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../jsonrpc/types.js';
import type { Era } from '../protocol/versions.js';

/** What the transport must know about the era to frame a message (HTTP headers, sessions). */
export interface WireContext {
  era: Era;
  /** The MCP-Protocol-Version header value on HTTP; absent for the legacy `initialize`. */
  protocolVersion?: string;
}

export interface SendOptions {
  wire: WireContext;
  /**
   * Aborting it gives up on the request: the transport stops waiting (and, on
   * HTTP, closes the response stream) and rejects with `signal.reason`.
   * Sending `notifications/cancelled` is the caller's decision.
   */
  signal?: AbortSignal;
  /** The progress token the request carries, so stream transports can route its progress. */
  progressToken?: string | number;
  /** Notifications that belong to this request (its SSE stream, or its progress on a shared stream). */
  onNotification?: (notification: JsonRpcNotification) => void;
  /** Extra HTTP headers (Mcp-Param-*); ignored by stream transports. */
  headers?: Record<string, string>;
}

export interface IncomingResponse {
  message: JsonRpcResponse;
  /** The HTTP status the response came with, on HTTP. */
  httpStatus?: number;
}

/** What a transport knows about a request the server sent. */
export interface ServerRequestContext {
  /**
   * Aborted when the answer is no longer wanted: the server cancelled the
   * request, the client request it arrived with ended, or the connection closed.
   */
  signal: AbortSignal;
  /**
   * The client request it arrived with: the POST whose stream carried it (HTTP),
   * or the only request of its kind in flight (stdio, in memory), when known.
   */
  relatedRequest?: JsonRpcRequest;
}

/**
 * Answers a request the server sent (legacy era: elicitation, sampling,
 * roots). Without one, a transport answers `ping` and refuses the rest with
 * -32601.
 */
export type ServerRequestHandler = (request: JsonRpcRequest, context: ServerRequestContext) => Promise<JsonRpcResponse>;

export interface CloseOptions {
  graceMs?: number;
}

/**
 * Moves JSON-RPC messages between the client and one server. Transports know
 * framing, correlation and limits; the protocol (eras, `_meta`, results) lives
 * in the client.
 */
export interface ClientTransport {
  readonly kind: 'stdio' | 'http' | 'memory';
  /** The server's host and port, for a network transport (the client span's `server.address`/`server.port`). */
  readonly serverAddress?: { host: string; port: number };
  /** The legacy session the server gave, if any (the client span's `mcp.session.id`). */
  readonly legacySessionId?: string;
  request(request: JsonRpcRequest, options: SendOptions): Promise<IncomingResponse>;
  notify(notification: JsonRpcNotification, wire: WireContext): Promise<void>;
  /** Notifications not tied to a request the transport knows (logs, list changes). */
  onNotification?: (notification: JsonRpcNotification) => void;
  /** Requests the server sends (set by the client when it can answer them). */
  onServerRequest?: ServerRequestHandler;
  /** What the server process wrote on its stderr lately, when the transport keeps it (stdio with stderr 'capture'): shown when connecting fails. */
  capturedStderr?(): string | undefined;
  /** `graceMs`: how long a stdio server may take to exit at each step (stdin closed, SIGTERM) before the next. */
  close(options?: CloseOptions): Promise<void>;
}
