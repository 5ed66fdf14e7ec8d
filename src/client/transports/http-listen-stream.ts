import { classifyMessage, type ParsedMessage } from '../../jsonrpc/parse.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../../jsonrpc/types.js';
import { InboundRequests } from '../inbound-requests.js';
import { resumableSseEvents } from './sse-resume.js';
import type { ServerRequestHandler } from '../transport.js';

/** How long connecting waits for the server to open its stream before going on without it. */
const OPEN_WAIT_MS = 3_000;

interface ListenChannel {
  /** GETs the stream (resumed after `lastEventId` when given); undefined when the server has none. */
  open(lastEventId: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | undefined>;
  maxEventBytes: number;
  onNotification(notification: JsonRpcNotification): void;
  /** The client's answerer of server requests, looked up when one arrives. */
  onRequest(): ServerRequestHandler | undefined;
  /** The client's call a server request most likely belongs to (the only one in flight), if any. */
  relatedCall(): JsonRpcRequest | undefined;
  answer(response: JsonRpcMessage): Promise<void>;
  warn(message: string): void;
}

/**
 * The standalone SSE stream of a legacy Streamable HTTP session (2025-11-25
 * transports "Listening for Messages from the Server"): the server's requests
 * (elicitation, sampling, roots) and notifications that belong to no request
 * of ours arrive here, and it is resumed with Last-Event-ID when it drops.
 * Nothing here fails the session: a server without a stream, or one that goes
 * away, only means nothing more arrives this way.
 */
export class LegacyListenStream {
  private readonly stopped = new AbortController();
  private readonly inbound: InboundRequests;

  constructor(private readonly channel: ListenChannel) {
    this.inbound = new InboundRequests((response) => channel.answer(response), channel.warn);
  }

  /** Opens the stream and reads it in the background; resolves once it is open, refused, or slow to open. */
  async start(): Promise<void> {
    const opening = this.channel.open(undefined, this.stopped.signal).then(
      (body) => {
        if (body) void this.read(body);
      },
      (err: unknown) => {
        if (!this.stopped.signal.aborted) this.channel.warn(`could not open the session's event stream: ${(err as Error).message}`);
      },
    );
    // A request sent before the stream is open could be answered on it and lost: wait a little for it.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([opening, new Promise<void>((resolve) => (timer = setTimeout(resolve, OPEN_WAIT_MS)))]);
    clearTimeout(timer);
  }

  close(): void {
    if (this.stopped.signal.aborted) return;
    this.stopped.abort(new Error('the session is closed'));
    this.inbound.close(this.stopped.signal.reason);
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const signal = this.stopped.signal;
    const events = resumableSseEvents(body, { maxEventBytes: this.channel.maxEventBytes, signal, reopen: (id, s) => this.channel.open(id, s) });
    try {
      for await (const event of events) {
        if (event.event !== 'message' || event.data.trim() === '') continue;
        this.receive(event.data);
      }
    } catch (err) {
      if (!signal.aborted) this.channel.warn(`the session's event stream ended: ${(err as Error).message}`);
    }
  }

  private receive(data: string): void {
    let parsed: ParsedMessage;
    try {
      parsed = classifyMessage(JSON.parse(data));
    } catch (err) {
      this.channel.warn(`ignored an invalid message on the session's event stream: ${(err as Error).message}`);
      return;
    }
    if (parsed.kind === 'notification') {
      if (!this.inbound.cancelled(parsed.message)) this.channel.onNotification(parsed.message);
    } else if (parsed.kind === 'request') {
      this.inbound.accept(parsed.message, this.channel.onRequest(), this.stopped.signal, this.channel.relatedCall());
    } else {
      this.channel.warn(`ignored a response (id ${JSON.stringify(parsed.message.id)}) on the session's event stream`);
    }
  }
}
