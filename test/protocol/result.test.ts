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
