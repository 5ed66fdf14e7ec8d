import { encodeRequest } from '../jsonrpc/encode.js';
import type { JsonRpcResponse, RequestId } from '../jsonrpc/types.js';
import type { LegacySession } from './legacy-session.js';
import { InflightRequests } from './inflight.js';

/**
 * Part of every server-to-client request id, random per process: a legacy session served by
 * several instances (docs/deployment.md) may get a response relayed from another instance, which
 * must never match a request of this one. Not a secret (ids are only matched within one session).
 */
const PROCESS_TAG = Math.random().toString(36).slice(2, 10);

/**
 * @internal One client connection as the dispatcher sees it, behind a
 * public ServerConnection (connection.ts): a stdio process, an in-memory
 * pair, a WebSocket, or a legacy HTTP session (modern HTTP requests each get
 * their own short-lived connection).
 */
export class Peer {
  legacy?: LegacySession;
  /** Requests in flight, so `notifications/cancelled` can abort them. */
  readonly inflight = new InflightRequests();
  /**
   * Server-to-client requests awaiting the client's answer (legacy era). Made on the first
   * one: a modern HTTP request gets a Peer of its own, and almost none ever asks the client.
   */
  private outbound?: Map<RequestId, OutboundRequest>;
  private nextOutboundId = 0;
  private closeListeners?: Array<() => void>;
  /**
   * Sends an unsolicited notification (legacy list changes): the connection's
   * own channel (stdio, a WebSocket), or a legacy HTTP session's GET stream
   * while one is open.
   */
  push?: (json: string) => void;
  /**
   * Its requests arrive with channels of their own (HTTP: each POST's
   * response), so `push` is not where a request's traffic goes: a background
   * task's requests to the client wait for a `tasks/result` stream instead.
   */
  requestChannels = false;

  /** `transport` labels it ('stdio', 'http', 'websocket', …). */
  constructor(readonly transport: string) {}

  onClose(listener: () => void): void {
    (this.closeListeners ??= []).push(listener);
  }

  /**
   * Sends a request to the client on `write` (the call's own channel) and
   * resolves with its result. Rejects when the client answers with an error
   * or `signal` aborts (the call was cancelled or timed out).
   */
  request(write: (json: string) => void, method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const id = `toolwright-${PROCESS_TAG}-${++this.nextOutboundId}`;
    const outbound = (this.outbound ??= new Map<RequestId, OutboundRequest>());
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => {
        outbound.delete(id);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      outbound.set(id, {
        method,
        resolve: (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject: (err) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      });
      write(encodeRequest(id, method, params));
    });
  }

  /** Routes a client's response to the request it answers; false when nothing waits for it. */
  handleResponse(response: JsonRpcResponse): boolean {
    const id = response.id;
    const waiter = id === undefined || id === null ? undefined : this.outbound?.get(id);
    if (!waiter) return false;
    this.outbound!.delete(id!);
    if ('error' in response) waiter.reject(new ClientRequestError(waiter.method, response.error?.code ?? 0, String(response.error?.message ?? 'error')));
    else waiter.resolve(response.result);
    return true;
  }

  /** Aborts everything in flight: the connection is gone. */
  close(reason = 'connection closed'): void {
    this.inflight.abortAll(new Error(reason));
    const outbound = this.outbound;
    this.outbound = undefined;
    if (outbound) for (const waiter of outbound.values()) waiter.reject(new Error(reason));
    const listeners = this.closeListeners;
    this.closeListeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }
}

/** A server-to-client request waiting for the client's answer. */
interface OutboundRequest {
  method: string;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/** A server-to-client request the client answered with a JSON-RPC error (legacy era). */
export class ClientRequestError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`the client answered ${method} with error ${code}: ${message}`);
    this.name = 'ClientRequestError';
  }
}
