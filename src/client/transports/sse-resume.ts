import { readSseEvents, type SseEvent, type SseStreamState } from './sse-reader.js';
import { ProtocolViolationError } from '../errors.js';

/** How long to wait before reconnecting when the server gave no `retry` (the SSE standard leaves it to the client). */
const DEFAULT_RETRY_MS = 1_000;
/** Reconnections in a row that bring no event before the stream is given up. */
const MAX_IDLE_RECONNECTS = 5;

interface ResumeOptions {
  maxEventBytes: number;
  /**
   * Reopens the stream after it dropped (2025-11-25 transports "Resumability
   * and Redelivery": an HTTP GET with Last-Event-ID). Resolves with the new
   * body, or undefined when the server will not resume it. Absent: the
   * stream is read once (modern streams are not resumable).
   */
  reopen?: (lastEventId: string, signal: AbortSignal) => Promise<ReadableStream<Uint8Array> | undefined>;
  /** Ends the waiting and the reading (the request is over, the transport closed). */
  signal: AbortSignal;
  /** Reconnection time when the server sent no `retry` field. */
  defaultRetryMs?: number;
  /** Most time one wait may take, whatever `retry` says (a hostile server may ask for days). */
  maxRetryMs?: number;
}

/**
 * The events of one logical SSE stream across its reconnections. When the
 * connection ends (closed by the server, or dropped) after an event with an
 * id, it waits the stream's `retry` time (the client MUST respect it) and
 * reopens with that id as Last-Event-ID; a stream with no id cannot be
 * resumed and simply ends, as does one the server refuses to reopen. Events
 * with empty data (the priming event) carry no message and are passed on so
 * the caller sees them; an oversized event is never retried.
 */
export async function* resumableSseEvents(first: ReadableStream<Uint8Array>, options: ResumeOptions): AsyncGenerator<SseEvent> {
  const state: SseStreamState = {};
  let body: ReadableStream<Uint8Array> | undefined = first;
  let idle = 0;
  let reopenFailure: unknown;
  for (;;) {
    // Why the last connection ended (or could not be made), when it did not end cleanly.
    let failure = reopenFailure;
    reopenFailure = undefined;
    try {
      if (body) {
        for await (const event of readSseEvents(body, options.maxEventBytes, state)) {
          idle = 0;
          yield event;
        }
      }
    } catch (err) {
      if (err instanceof ProtocolViolationError || options.signal.aborted) throw err;
      failure = err;
    }
    const lastEventId = state.lastEventId;
    if (!options.reopen || lastEventId === undefined || ++idle > MAX_IDLE_RECONNECTS) {
      if (failure !== undefined) throw failure;
      return;
    }
    const retryMs = Math.min(state.retryMs ?? options.defaultRetryMs ?? DEFAULT_RETRY_MS, options.maxRetryMs ?? 60_000);
    await sleep(retryMs, options.signal);
    try {
      body = await options.reopen(lastEventId, options.signal);
    } catch (err) {
      // A reconnection that fails is tried again, up to the idle limit; only the caller's end stops it at once.
      if (options.signal.aborted) throw err;
      body = undefined;
      reopenFailure = err;
      continue;
    }
    if (!body) return; // the server does not resume this stream
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
