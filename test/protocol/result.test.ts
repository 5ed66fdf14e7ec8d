import { describe, expect, it } from 'vitest';
import { ResultEncoder, shapeResult, STRUCTURED_JSON } from '../../src/protocol/result.js';

const info = { name: 'srv', version: '1.0.0' };
const encoder = new ResultEncoder(info);

describe('result encoding', () => {
  it.each([
    [{ content: [{ type: 'text', text: 'hi "quoted"' }], isError: false }],
    [{}],
    [{ content: [], _meta: { 'com.example/trace': 'x' } }],
    [{ resultType: 'input_required', inputRequests: {}, requestState: 's' }],
    [{ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1, nested: [null, 'é'] }, skipped: undefined, 'odd "key"': true }],
    // Members that are strings or numbers are written without JSON.stringify: each escape it would make, made.
    [{ description: 'plain é ✓', quote: 'a "b"', slash: 'a\\b', control: 'a\nb\u0001', pair: '😀', lone: 'a\ud800b', del: '\u007f\u2028' }],
    [{ long: 'x'.repeat(300), longQuoted: `${'x'.repeat(300)}"`, 'key\twith tab': 1, ключ: 'значение' }],
    [{ ttlMs: 300000, zero: -0, half: 0.5, big: 1e21, tiny: 1e-7, nan: Number.NaN, inf: Number.POSITIVE_INFINITY, negInf: -Infinity, empty: '' }],
  ])('writes the modern envelope exactly as JSON.stringify(shapeResult(...)) would: %j', (result) => {
    expect(encoder.encode('modern', result)).toBe(JSON.stringify(shapeResult('modern', result, info)));
  });

  // Lists of text entries (a tool's content, a prompt's messages, a read's contents) are written by
  // hand when JSON.stringify would write them the same way; every other list is left to it.
  const block = (text: string) => ({ type: 'text', text });
  class Block {
    type = 'text';
    text = 'from a class';
  }
  const withOwnToJson = Object.defineProperty(block('x'), 'toJSON', { value: () => 'replaced', enumerable: false });
  const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, block('no prototype'));
  it.each<[Record<string, unknown>]>([
    [{ content: [block('a'), block('b "c"'), block('line\nbreak'), block('😀 \ud800'), block('x'.repeat(300))] }],
    [{ content: Array.from({ length: 9 }, (_, i) => block(String(i))) }],
    [{ content: [{ text: 'members swapped', type: 'text' }, block('b')] }],
    [{ content: [{ type: 'image', text: 'not text' }] }],
    [{ content: [{ type: 'text', text: 42 }] }],
    [{ content: [{ type: 'text', text: 'extra', annotations: { audience: ['user'] } }] }],
    [{ content: [new Block()] }],
    [{ content: [withOwnToJson] }],
    [{ content: [nullProto] }],
    // biome-ignore lint/suspicious/noSparseArray: a hole is written as null
    [{ content: [block('a'), , block('c')] }],
    [
      {
        description: 'Add',
        messages: [
          { role: 'user', content: block('3') },
          { role: 'assistant', content: block('"4"') },
        ],
      },
    ],
    [
      {
        messages: [
          { role: 'odd "role"', content: block('x') },
          { role: 'user', content: { type: 'image', data: 'AA==', mimeType: 'image/png' } },
        ],
      },
    ],
    [{ messages: [{ content: block('x'), role: 'user' }] }],
    [{ messages: [{ role: 'user', content: 'a string' }] }],
    [
      {
        contents: [
          { uri: 'sum://1/2', mimeType: 'text/plain', text: '3' },
          { uri: 'file:///a "b"', mimeType: 'text/plain', text: 'tab\t' },
        ],
      },
    ],
    [
      {
        contents: [
          { uri: 'x://1', mimeType: 'application/octet-stream', blob: 'AA==' },
          { uri: 'x://2', text: 'no mime type' },
        ],
      },
    ],
  ])('writes lists of text entries exactly as JSON.stringify would: %j', (result) => {
    expect(encoder.encode('modern', result)).toBe(JSON.stringify(shapeResult('modern', result, info)));
  });

  it('reads each member of a text entry once, as JSON.stringify does (a getter runs once)', () => {
    let reads = 0;
    const entry = () => ({
      type: 'text',
      get text() {
        reads++;
        return 'computed';
      },
    });
    const viaStringify = JSON.stringify(shapeResult('modern', { content: [entry()] }, info));
    const stringifyReads = reads;
    reads = 0;
    expect(encoder.encode('modern', { content: [entry()] })).toBe(viaStringify);
    expect(reads).toBe(stringifyReads);
  });

  it("honours a toJSON put on Object's prototype, as JSON.stringify does", () => {
    const proto = Object.prototype as { toJSON?: () => unknown };
    proto.toJSON = () => 'polluted';
    try {
      const content = [block('a')];
      const messages = [{ role: 'user', content: block('b') }];
      const json = encoder.encode('modern', { content, messages });
      expect(json).toContain(`"content":${JSON.stringify(content)},"messages":${JSON.stringify(messages)}`);
      expect(JSON.stringify(content)).toBe('"polluted"');
    } finally {
      delete proto.toJSON;
    }
  });

  it('leaves legacy results as they are', () => {
    expect(encoder.encode('legacy', { content: [] })).toBe('{"content":[]}');
  });

  it.each(['modern', 'legacy'] as const)('writes structuredContent from its JSON text when the result carries it (%s), without serializing it again', (era) => {
    let serialized = 0;
    const structuredContent = { toJSON: () => (serialized++, { a: 1, b: ['x'] }) };
    const plain = { content: [{ type: 'text', text: 'ok' }], structuredContent: { a: 1, b: ['x'] }, isError: false };
    const carrying = { ...plain, structuredContent, [STRUCTURED_JSON]: '{"a":1,"b":["x"]}' };
    expect(encoder.encode(era, carrying)).toBe(encoder.encode(era, plain));
    expect(serialized).toBe(0);
  });

  it('puts resultType first', () => {
    expect(encoder.encode('modern', { content: [] }).startsWith('{"resultType":"complete","content":[]')).toBe(true);
  });

  it.each([[{ tools: [{ name: 'a' }], nextCursor: 'c', ttlMs: 0, cacheScope: 'public' }], [{}]])(
    'wraps members that are already JSON text as encode would: %j',
    (result) => {
      const members = JSON.stringify(result).slice(1, -1);
      expect(encoder.wrap('modern', members)).toBe(encoder.encode('modern', result));
      expect(encoder.wrap('legacy', members)).toBe(encoder.encode('legacy', result));
    },
  );
});
