import { describe, expect, it } from 'vitest';
import { checkExpectation } from '../../src/collections/check.js';

const ok = { content: [{ type: 'text' as const, text: 'sum is 5' }], structuredContent: { sum: 5 } };

describe('checkExpectation', () => {
  it('defaults to "not an error"', () => {
    expect(checkExpectation(ok).passed).toBe(true);
    expect(checkExpectation({ ...ok, isError: true }).passed).toBe(false);
  });
  it('checks structuredContent subset and text substring', () => {
    expect(checkExpectation(ok, { structuredContent: { sum: 5 }, text: 'is 5' })).toEqual({
      passed: true,
      failures: [],
    });
    expect(checkExpectation(ok, { structuredContent: { sum: 6 } }).failures).toEqual(['$.structuredContent.sum: expected 6, got 5']);
    expect(checkExpectation(ok, { text: 'nope' }).passed).toBe(false);
  });
});
