import { ProtocolViolationError } from '../errors.js';

export interface SseEvent {
  /** The event type ("message" when the server named none). */
  event: string;
  /** May be empty: an event with an id and an empty `data` line primes a client for resumption (2025-11-25 transports). */
  data: string;
  id?: string;
}

/**
 * What a stream told the reader about reconnecting, kept across events and
 * across the reconnections of one logical stream (WHATWG HTML "event stream
 * interpretation"): the last event ID (set when an event is dispatched, even
 * one with no data) and the reconnection time from a `retry` field.
 */
export interface SseStreamState {
  lastEventId?: string;
  retryMs?: number;
}

/**
 * Reads Server-Sent Events (WHATWG HTML "Parsing an event stream") from a
 * response body. A line or an event larger than `maxEventBytes` throws
 * instead of growing without bound: the server is not trusted.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array>, maxEventBytes: number, state: SseStreamState = {}): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let data: string[] = [];
  let dataSize = 0;
  let event = '';
  // The last event ID buffer is not reset between events; a resumed stream starts from the one it resumed at.
  let id: string | undefined = state.lastEventId;

  const tooLarge = () => new ProtocolViolationError(`the server sent an event larger than the ${maxEventBytes}-byte limit`);

  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const end = lineEnd(buffer, start);
      if (end === -1) break;
      const line = buffer.slice(start, end);
      start = end + (buffer[end] === '\r' && buffer[end + 1] === '\n' ? 2 : 1);
      if (line === '') {
        if (id !== undefined) state.lastEventId = id;
        if (data.length) yield { event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) };
        data = [];
        dataSize = 0;
        event = '';
        continue;
      }
      if (line.startsWith(':')) continue; // a comment, e.g. a keep-alive
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') {
        dataSize += value.length + 1;
        if (dataSize > maxEventBytes) throw tooLarge();
        data.push(value);
      } else if (field === 'event') {
        event = value;
      } else if (field === 'id' && !value.includes('\0')) {
        id = value;
      } else if (field === 'retry' && /^[0-9]{1,9}$/.test(value)) {
        state.retryMs = Number(value);
      }
    }
    buffer = buffer.slice(start);
    if (buffer.length > maxEventBytes) throw tooLarge();
  }
  // A final event without its blank line is dropped, as the SSE rules say.
}

/** Index of the next line terminator (CR, LF or CRLF); -1 when none is complete yet. */
function lineEnd(buffer: string, from: number): number {
  for (let i = from; i < buffer.length; i++) {
    const c = buffer.charCodeAt(i);
    if (c === 10) return i;
    if (c === 13) return i + 1 < buffer.length ? i : -1; // a CR at the end may be half of a CRLF
  }
  return -1;
}
