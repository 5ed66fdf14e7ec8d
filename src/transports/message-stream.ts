import type { Caller } from '../policy/auth/caller.js';
import { encodeError } from '../jsonrpc/encode.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { Reply, ServerConnection } from '../server/connection.js';
import type { ToolServer } from '../server/server.js';

export { DEFAULT_MAX_LISTEN_STREAMS } from '../server/connection.js';

/**
 * Serves one bidirectional message stream (a stdio process, an in-memory
 * pair) on a public ServerConnection: the replies it returns are written on
 * the same stream as what the server sends on its own, in completion order;
 * every request is answered unless the client cancelled it. Counts what is
 * still unanswered, so that a closing stream can wait for it (`drain`).
 */
export class MessageStreamSession {
  readonly connection: ServerConnection;
  private pending = 0;
  private onDrained?: () => void;
  // Bound once: one reaction per request, no closure per request.
  private readonly answered = (reply: Reply | undefined): void => {
    try {
      if (reply !== undefined) this.write(reply.json);
    } finally {
      if (--this.pending === 0) this.onDrained?.();
    }
  };
  private readonly failed = (): void => {
    // A connection's reply never rejects; should one, the client still hears (no id: it is not known here).
    this.answered({ json: encodeError(undefined, new RpcError(ErrorCode.InternalError, 'Internal error')), status: 500 });
  };

  constructor(
    server: ToolServer,
    private readonly write: (json: string) => void,
    transport: string,
    caller?: string | Caller,
    /** Each open subscription holds server state for as long as the client likes: capped. */
    maxListenStreams?: number,
  ) {
    this.connection = server.connect({ transport, send: write, caller, maxListenStreams });
  }

  /** Handles one serialized message. */
  receive(text: string): void {
    const reply = this.connection.receive(text);
    if (reply === undefined) return;
    this.pending++;
    reply.then(this.answered, this.failed);
  }

  /** A line longer than the limit: say so, with no id (it could not be read). */
  oversized(limitBytes: number): void {
    this.write(
      encodeError(undefined, new RpcError(ErrorCode.InvalidRequest, `Invalid Request: message exceeds the ${limitBytes}-byte limit and was discarded`)),
    );
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
    this.connection.close();
  }
}
