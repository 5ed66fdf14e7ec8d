import { describe, expect, it } from 'vitest';
import { ResultEncoder, shapeResult } from '../../src/protocol/result.js';

const info = { name: 'srv', version: '1.0.0' };
const encoder = new ResultEncoder(info);

describe('result encoding', () => {
  it.each([
    [{ content: [{ type: 'text', text: 'hi "quoted"' }], isError: false }],
    [{}],
    [{ content: [], _meta: { 'com.example/trace': 'x' } }],
    [{ resultType: 'input_required', inputRequests: {}, requestState: 's' }],
  ])('splices the modern envelope exactly as shapeResult builds it: %j', (result) => {
    expect(JSON.parse(encoder.encode('modern', result))).toEqual(shapeResult('modern', result, info));
  });

  it('leaves legacy results as they are', () => {
    expect(encoder.encode('legacy', { content: [] })).toBe('{"content":[]}');
  });

  it('puts resultType first', () => {
    expect(encoder.encode('modern', { content: [] }).startsWith('{"resultType":"complete","content":[]')).toBe(true);
  });
});
