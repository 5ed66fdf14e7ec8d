import { describe, expect, it } from 'vitest';
import { SubstringScan } from '../../../src/toolsets/fs/substring-search.js';

describe('SubstringScan', () => {
  it('agrees with String#includes, whole and fed in pieces (3,000 random cases)', () => {
    let seed = 18;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    const word = (max: number) => Array.from({ length: Math.floor(random() * max) }, () => 'ab😀'[Math.floor(random() * 4)] ?? 'a').join('');
    for (let n = 0; n < 3_000; n++) {
      const needle = word(6) || 'a';
      const text = word(40);
      const scan = new SubstringScan(needle);
      expect(scan.feed(text), `${needle} in ${text}`).toBe(text.includes(needle));
      scan.reset();
      const cut = Math.floor(random() * (text.length + 1));
      expect(scan.feed(text, 0, cut) || scan.feed(text, cut), `${needle} in ${text} cut at ${cut}`).toBe(text.includes(needle));
    }
  });

  it('answers the inputs that make String#includes super-linear, in one pass', () => {
    const line = 'a'.repeat(1 << 20);
    const needle = `${'a'.repeat(100)}b${'a'.repeat(899)}`;
    expect(new SubstringScan(needle).feed(line)).toBe(false);
    expect(new SubstringScan(needle).feed(`${line}${needle}`)).toBe(true);
  });

  it('forgets a partial match on reset', () => {
    const scan = new SubstringScan('abc');
    expect(scan.feed('xab')).toBe(false);
    scan.reset();
    expect(scan.feed('c')).toBe(false);
    expect(scan.feed('ab') || scan.feed('c')).toBe(true);
  });
});
