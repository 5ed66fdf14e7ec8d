import { describe, expect, it } from 'vitest';
import { readSseEvents, type SseStreamState } from '../../../src/client/transports/sse-reader.js';

function stream(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

async function read(text: string, state: SseStreamState = {}) {
  const events = [];
  for await (const e of readSseEvents(stream(text), 10_000, state)) events.push(e);
  return { events, state };
}

describe('readSseEvents: what a stream says about reconnecting (WHATWG event stream interpretation)', () => {
  it('dispatches an event with an id and an empty data line, with empty data (the priming event)', async () => {
    const { events, state } = await read('id: p1\ndata:\n\n');
    expect(events).toEqual([{ event: 'message', data: '', id: 'p1' }]);
    expect(state.lastEventId).toBe('p1');
  });

  it('records the last event id of an event without data, which is not dispatched', async () => {
    const { events, state } = await read('data: a\nid: 1\n\nid: 2\n\n');
    expect(events).toEqual([{ event: 'message', data: 'a', id: '1' }]);
    expect(state.lastEventId).toBe('2');
  });

  it('does not take the id of an event the stream never finished', async () => {
    const { state } = await read('id: 1\ndata: a\n\nid: 2\ndata: b');
    expect(state.lastEventId).toBe('1');
  });

  it('takes a retry of ASCII digits only, as the reconnection time', async () => {
    expect((await read('retry: 2500\n\n')).state.retryMs).toBe(2500);
    for (const bad of ['retry: 25x\n\n', 'retry: -1\n\n', 'retry: 1.5\n\n', 'retry:\n\n', 'retry: 99999999999\n\n']) {
      expect((await read(bad)).state.retryMs).toBeUndefined();
    }
  });

  it('ignores an id holding NUL, and a resumed stream continues from the id it resumed at', async () => {
    expect((await read('id: a\0b\ndata: x\n\n', { lastEventId: 'before' })).events).toEqual([{ event: 'message', data: 'x', id: 'before' }]);
  });
});
