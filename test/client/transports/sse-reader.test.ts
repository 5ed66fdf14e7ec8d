import { describe, expect, it } from 'vitest';
import { ProtocolViolationError } from '../../../src/client/errors.js';
import { readSseEvents } from '../../../src/client/transports/sse-reader.js';

function stream(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
}

async function collect(chunks: string[], max = 1_000) {
  const out = [];
  for await (const e of readSseEvents(stream(chunks), max)) out.push(e);
  return out;
}

describe('readSseEvents', () => {
  it('handles LF, CRLF and CR line ends split across chunks, comments and multi-line data', async () => {
    const events = await collect([
      ': keep-alive\n\n',
      'event: message\r',
      '\ndata: {"a":',
      '1}\r\n\r\n',
      'data: x\rdata: y\r\r',
      'id: 7\ndata:z\n\n',
      'data: unterminated',
    ]);
    expect(events).toEqual([
      { event: 'message', data: '{"a":1}' },
      { event: 'message', data: 'x\ny' },
      { event: 'message', data: 'z', id: '7' },
    ]);
  });

  it('keeps custom event types for the caller to skip', async () => {
    expect(await collect(['event: ping\ndata: {}\n\n'])).toEqual([{ event: 'ping', data: '{}' }]);
  });

  it('refuses an event or a line larger than the limit', async () => {
    await expect(collect([`data: ${'x'.repeat(200)}\n\n`], 100)).rejects.toBeInstanceOf(ProtocolViolationError);
    await expect(collect(['data: '.padEnd(300, 'y')], 100)).rejects.toBeInstanceOf(ProtocolViolationError);
  });
});
