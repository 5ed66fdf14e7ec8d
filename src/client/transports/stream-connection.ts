import { parseMessage } from '../../jsonrpc/parse.js';
import type { JsonRpcNotification, JsonRpcRequest, RequestId } from '../../jsonrpc/types.js';
import { Method } from '../../protocol/methods.js';
import { ProtocolViolationError } from '../errors.js';
import { InboundRequests } from '../inbound-requests.js';
import type { IncomingResponse, SendOptions, ServerRequestHandler } from '../transport.js';

interface Pending {
  request: JsonRpcRequest;
  resolve(response: IncomingResponse): void;
  reject(err: unknown): void;
  done(): void;
  /** Aborted when the request settles; created only when a server request is tied to it. */
  scope?: AbortController;
}

/**
 * Request/response correlation over one shared message stream (a stdio
 * child, an in-memory pair). Messages are handled strictly in arrival order,
 * so a progress notification written just before its response is delivered
 * before the response resolves the request.
 */
export class StreamConnection {
  onNotification?: (notification: JsonRpcNotification) => void;
  /** Answers requests the server sends (legacy elicitation, sampling, roots). */
  onRequest?: ServerRequestHandler;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly progressRoutes = new Map<string | number, (n: JsonRpcNotification) => void>();
  private readonly inbound: InboundRequests;
  private failure?: Error;

  constructor(
    private readonly writeMessage: (json: string) => void,
    private readonly warn: (message: string) => void,
  ) {
    this.inbound = new InboundRequests((response) => {
      if (!this.failure) this.writeMessage(JSON.stringify(response));
    }, warn);
  }

  request(request: JsonRpcRequest, options: SendOptions): Promise<IncomingResponse> {
    if (this.failure) return Promise.reject(this.failure);
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<IncomingResponse>((resolve, reject) => {
      const onAbort = () => {
        entry.done();
        reject(signal?.reason);
      };
      const entry: Pending = {
        request,
        resolve,
        reject,
        done: () => {
          this.pending.delete(request.id);
          entry.scope?.abort(new Error(`${request.method} is over`));
          if (options.progressToken !== undefined) this.progressRoutes.delete(options.progressToken);
          signal?.removeEventListener('abort', onAbort);
        },
      };
      this.pending.set(request.id, entry);
      if (options.progressToken !== undefined && options.onNotification) {
        this.progressRoutes.set(options.progressToken, options.onNotification);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        this.writeMessage(JSON.stringify(request));
      } catch (err) {
        entry.done();
        reject(err);
      }
    });
  }

  notify(notification: JsonRpcNotification): void {
    if (this.failure) throw this.failure;
    this.writeMessage(JSON.stringify(notification));
  }

  /** Handles one message from the server. */
  receive(text: string): void {
    let parsed: ReturnType<typeof parseMessage>;
    try {
      parsed = parseMessage(text);
    } catch (err) {
      this.warn(`ignored an invalid message from the server: ${(err as Error).message}`);
      return;
    }
    switch (parsed.kind) {
      case 'response': {
        const id = parsed.message.id;
        const entry = id === undefined || id === null ? undefined : this.pending.get(id);
        if (!entry) {
          // A late answer to a request we gave up on (cancellation.mdx: ignore it), or noise.
          if (id === undefined || id === null) this.warn(`the server reported an error without a request id: ${describeError(parsed.message)}`);
          return;
        }
        entry.done();
        entry.resolve({ message: parsed.message });
        return;
      }
      case 'notification': {
        const n = parsed.message;
        if (this.inbound.cancelled(n)) return;
        const token = n.method === Method.progress ? n.params?.progressToken : undefined;
        const route = typeof token === 'string' || typeof token === 'number' ? this.progressRoutes.get(token) : undefined;
        (route ?? this.onNotification)?.(n);
        return;
      }
      case 'request': {
        // Never leave a server request unanswered. One shared stream does not say which call
        // a request belongs to; when exactly one call is in flight, it can only be that one.
        if (this.failure) return;
        const related = this.onRequest ? this.soleCall() : undefined;
        if (related) related.scope ??= new AbortController();
        this.inbound.accept(parsed.message, this.onRequest, related?.scope?.signal, related?.request);
        return;
      }
    }
  }

  private soleCall(): Pending | undefined {
    let found: Pending | undefined;
    for (const entry of this.pending.values()) {
      if (entry.request.method !== Method.toolsCall) continue;
      if (found) return undefined;
      found = entry;
    }
    return found;
  }

  /** A message was too large to read; it could have been any pending response, so all of them fail. */
  oversized(limitBytes: number): void {
    const err = new ProtocolViolationError(`the server sent a message larger than the ${limitBytes}-byte limit; it was discarded`);
    this.warn(err.message);
    for (const entry of [...this.pending.values()]) {
      entry.done();
      entry.reject(err);
    }
  }

  /** The stream is gone: every pending and future request fails with `err`. */
  fail(err: Error): void {
    this.failure ??= err;
    this.inbound.close(this.failure);
    for (const entry of [...this.pending.values()]) {
      entry.done();
      entry.reject(this.failure);
    }
  }
}

function describeError(message: unknown): string {
  const error = (message as { error?: { message?: unknown } }).error;
  return typeof error?.message === 'string' ? error.message.slice(0, 200) : 'unknown error';
}
