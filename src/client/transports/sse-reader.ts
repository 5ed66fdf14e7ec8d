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
  const tooLarge = () => new ProtocolViolationError(`the server sent an event larger than the ${maxEventBytes}-byte limit`);
  const lines = new SseLineSplitter();
  let data: string[] = [];
  let dataSize = 0;
  let event = '';
  // The last event ID buffer is not reset between events; a resumed stream starts from the one it resumed at.
  let id: string | undefined = state.lastEventId;

  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    for (const line of lines.push(decoder.decode(chunk, { stream: true }))) {
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
    if (lines.unfinishedChars > maxEventBytes) throw tooLarge();
  }
  // A final event without its blank line is dropped, as the SSE rules say.
}

/**
 * Cuts decoded text into lines (ended by CR, LF or CRLF), each character looked at once: the
 * unfinished line is kept as pieces, never searched again. Keeping it as one string searched
 * from its start at every chunk made a long line cost its length squared (a 16 MiB data line
 * in 64 KiB chunks kept a core busy for ~25 s before the limit struck).
 */
class SseLineSplitter {
  private pieces: string[] = [];
  /** Characters of the line not yet ended. */
  unfinishedChars = 0;
  /** The last chunk ended with CR: a LF opening the next one is the rest of that CRLF. */
  private afterCr = false;

  push(text: string): string[] {
    if (text === '') return []; // a chunk of half a character: a CR before it still waits for its LF
    const lines: string[] = [];
    let start = this.afterCr && text.charCodeAt(0) === 10 ? 1 : 0;
    this.afterCr = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const piece = text.slice(start, i);
      if (this.pieces.length === 0) lines.push(piece);
      else {
        this.pieces.push(piece);
        lines.push(this.pieces.join(''));
        this.pieces = [];
        this.unfinishedChars = 0;
      }
      if (c === 13 && i + 1 === text.length) this.afterCr = true;
      else if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
    if (start < text.length) {
      this.pieces.push(text.slice(start));
      this.unfinishedChars += text.length - start;
    }
    return lines;
  }
}
