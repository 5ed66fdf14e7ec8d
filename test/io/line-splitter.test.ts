import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/io/line-splitter.js';

function split(chunks: Array<string | Buffer>, maxLineBytes = 1024, end = false) {
  const events: string[] = [];
  const splitter = new LineSplitter(
    maxLineBytes,
    (line) => events.push(line),
    (bytes) => events.push(`<oversized ${bytes}>`),
    () => events.push('<not utf-8>'),
  );
  for (const c of chunks) splitter.push(typeof c === 'string' ? Buffer.from(c) : c);
  if (end) splitter.end();
  return events;
}

describe('LineSplitter (stdio framing)', () => {
  it('splits many lines of one chunk, and lines spread over chunks', () => {
    expect(split(['{"a":1}\n{"b":2}\n{"c"', ':3}\n{"d":4}\n'])).toEqual(['{"a":1}', '{"b":2}', '{"c":3}', '{"d":4}']);
  });

  it('drops a trailing CR and skips blank lines', () => {
    expect(split(['{"a":1}\r\n\n   \r\n{"b":2}\n'])).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('keeps a multi-byte character cut between chunks whole', () => {
    const bytes = Buffer.from('{"t":"é€😀"}\n');
    // é is bytes 6-7, € 8-10, 😀 11-14: each cut falls inside one.
    expect(split([bytes.subarray(0, 7), bytes.subarray(7, 9), bytes.subarray(9, 13), bytes.subarray(13)])).toEqual(['{"t":"é€😀"}']);
  });

  it('reports a line over the limit once and goes on with the next, whether it came whole or in pieces', () => {
    const long = `{"x":"${'a'.repeat(40)}"}`;
    expect(split([`${long}\n{"ok":1}\n`], 32)).toEqual([`<oversized ${long.length}>`, '{"ok":1}']);
    expect(split([long.slice(0, 20), long.slice(20), '\n{"ok":2}\n'], 32)).toEqual([`<oversized ${long.length}>`, '{"ok":2}']);
  });

  it('accepts a line of exactly the limit', () => {
    const line = `{"x":"${'b'.repeat(20)}"}`;
    expect(split([`${line}\n`], line.length)).toEqual([line]);
    expect(split([line.slice(0, 5), `${line.slice(5)}\n`], line.length)).toEqual([line]);
  });

  it('counts a final line without a newline at the end of input', () => {
    expect(split(['{"a":1}\n{"b"', ':2}'], 1024, true)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('reports a line that is not UTF-8 instead of repairing it, and keeps its neighbours, in one chunk or spread over many', () => {
    const bad = Buffer.from([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x7d]); // {"<C0 AF>"}
    const one = Buffer.concat([Buffer.from('{"a":1}\n'), bad, Buffer.from('\n{"b":2}\n')]);
    expect(split([one])).toEqual(['{"a":1}', '<not utf-8>', '{"b":2}']);
    expect(split([one.subarray(0, 10), one.subarray(10)])).toEqual(['{"a":1}', '<not utf-8>', '{"b":2}']);
    expect(split([bad], 1024, true)).toEqual(['<not utf-8>']);
    // A character cut off by the newline is as invalid as a wrong byte.
    expect(split([Buffer.from([0x7b, 0xe2, 0x82, 0x0a, 0xac, 0x7d, 0x0a])])).toEqual(['<not utf-8>', '<not utf-8>']);
    for (const bytes of [[0xed, 0xa0, 0x80], [0xe0, 0x80, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xfe], [0x80]]) {
      expect(split([Buffer.concat([Buffer.from('{"x":"'), Buffer.from(bytes), Buffer.from('"}\n{"ok":1}\n')])])).toEqual(['<not utf-8>', '{"ok":1}']);
    }
  });
});
