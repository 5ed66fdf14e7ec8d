import { encodeError } from '../jsonrpc/encode.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { INCOMING_REQUESTS, parseMessage } from '../jsonrpc/parse.js';
import type { JsonRpcRequest, RequestId } from '../jsonrpc/types.js';
import { Method } from '../protocol/methods.js';
import { Peer } from '../server/peer.js';
import type { ToolServer } from '../server/server.js';

/** Open `subscriptions/listen` requests one stream session may hold, by default. */
export const DEFAULT_MAX_LISTEN_STREAMS = 32;

/**
 * Serves one bidirectional message stream (a stdio process, an in-memory
 * pair): one peer, replies written in completion order, every request
 * answered unless the client cancelled it.
 */
export class MessageStreamSession {
  readonly peer: Peer;
  private pending = 0;
  private listening = 0;
  private onDrained?: () => void;

  constructor(
    private readonly server: ToolServer,
    private readonly write: (json: string) => void,
    kind: 'stdio' | 'memory',
    private readonly principal?: string,
    /** Each open subscription holds server state for as long as the client likes: capped. */
    private readonly maxListenStreams = DEFAULT_MAX_LISTEN_STREAMS,
  ) {
    this.peer = new Peer(kind);
    this.peer.push = write;
  }

  /** Handles one serialized message. */
  receive(text: string): void {
    let parsed;
    try {
      parsed = parseMessage(text, INCOMING_REQUESTS);
    } catch (err) {
      const e = err as RpcError;
      const id = (e.data as { id?: string | number } | undefined)?.id;
      this.write(encodeError(id, new RpcError(e.code, e.message)));
      return;
    }
    const dispatcher = this.server.dispatcher;
    switch (parsed.kind) {
      case 'request': {
        const request = parsed.message;
        if (request.method === Method.subscriptionsListen) return this.listen(request, text);
        const exchange = { peer: this.peer, notify: this.write, principal: this.principal, messageBytes: text.length * 3 };
        this.pending++;
        // One reaction for both outcomes (`.finally` would add two promises to every request).
        dispatcher.handleRequest(request, exchange).then(
          (reply) => this.answered(reply?.json),
          (err) => this.failed(request.id, err),
        );
        return;
      }
      case 'notification':
        dispatcher.handleNotification(parsed.message, this.peer);
        return;
      case 'response':
        // The client answering a server-to-client request (legacy elicitation, sampling, roots).
        this.peer.handleResponse(parsed.message);
        return;
    }
  }

  /**
   * A `subscriptions/listen` request: served like any other while a slot is
   * free. At the cap it is looked at once more a turn later: a subscription
   * cancelled just before (same read) frees its slot only once its request
   * has settled, a few promise reactions on.
   */
  private listen(request: JsonRpcRequest, text: string, retried = false): void {
    if (this.listening >= this.maxListenStreams) {
      if (!retried) {
        setImmediate(() => this.listen(request, text, true));
        return;
      }
      const message = `Too Many Requests: this connection has ${this.maxListenStreams} open streams (subscriptions/listen), as many as it may; cancel one first`;
      this.write(encodeError(request.id, new RpcError(ErrorCode.InternalError, message)));
      return;
    }
    this.listening++;
    this.pending++;
    const exchange = { peer: this.peer, notify: this.write, principal: this.principal, messageBytes: text.length * 3 };
    this.server.dispatcher.handleRequest(request, exchange).then(
      (reply) => {
        this.listening--;
        this.answered(reply?.json);
      },
      (err) => {
        this.listening--;
        this.failed(request.id, err);
      },
    );
  }

  /** Writes a request's answer (none when it was cancelled); the request is no longer pending either way. */
  private answered(json: string | undefined): void {
    try {
      if (json !== undefined) this.write(json);
    } finally {
      if (--this.pending === 0) this.onDrained?.();
    }
  }

  private failed(id: RequestId, err: unknown): void {
    let json: string;
    try {
      json = this.server.dispatcher.errorReply(id, err).json;
    } catch {
      // Even the error reply failed (a logger that throws): answer without it.
      json = encodeError(id, new RpcError(ErrorCode.InternalError, 'Internal error'));
    }
    this.answered(json);
  }

  /** A line longer than the limit: say so, with no id (it could not be read). */
  oversized(limitBytes: number): void {
    this.write(encodeError(undefined, new RpcError(ErrorCode.InvalidRequest, `Invalid Request: message exceeds the ${limitBytes}-byte limit and was discarded`)));
  }

  /** A line that is not UTF-8: a parse error with no id (nothing in it could be trusted, so nothing was read). */
  invalidUtf8(): void {
    this.write(encodeError(undefined, new RpcError(ErrorCode.ParseError, 'Parse error: the message is not valid UTF-8')));
  }

  /** Resolves once every request received so far has been answered, or after `graceMs`. */
  drain(graceMs: number): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      timer.unref?.();
      this.onDrained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  close(): void {
    this.peer.close();
  }
}
