import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/protocol/cursor.js';

describe('pagination cursors', () => {
  it('round-trip an offset', () => {
    expect(decodeCursor(encodeCursor(200))).toBe(200);
  });

  it.each([
    ['garbage'],
    [''],
    [42],
    ['tw1.' + Buffer.from('-1').toString('base64url')],
    ['tw1.' + Buffer.from('1e3').toString('base64url')],
    ['tw1.' + 'A'.repeat(80)],
  ])('reject %j with -32602', (cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ code: -32602 }));
  });
});
