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

/**
 * Moves JSON-RPC messages between the client and one server. Transports know
 * framing, correlation and limits; the protocol (eras, `_meta`, results) lives
 * in the client.
 */
export interface ClientTransport {
  readonly kind: 'stdio' | 'http' | 'memory';
  request(request: JsonRpcRequest, options: SendOptions): Promise<IncomingResponse>;
  notify(notification: JsonRpcNotification, wire: WireContext): Promise<void>;
  /** Notifications not tied to a request the transport knows (logs, list changes). */
  onNotification?: (notification: JsonRpcNotification) => void;
  close(): Promise<void>;
}
