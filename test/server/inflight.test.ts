import { describe, expect, it } from 'vitest';
import { InflightRequests } from '../../src/server/inflight.js';

const entry = () => {
  const reasons: unknown[] = [];
  return { reasons, abort: (reason?: unknown) => void reasons.push(reason) };
};

describe('requests in flight', () => {
  it('finds each request by id, whatever order the others finish in', () => {
    const inflight = new InflightRequests();
    const calls = Array.from({ length: 50 }, (_, i) => ({ id: i % 2 ? i : `req-${i}`, entry: entry() }));
    for (const c of calls) inflight.add(c.id, c.entry);
    // Finish every third one (removal reorders what is left).
    for (const c of calls.filter((_, i) => i % 3 === 0)) inflight.remove(c.entry);
    for (const [i, c] of calls.entries()) expect(inflight.get(c.id)).toBe(i % 3 === 0 ? undefined : c.entry);
    expect(inflight.size).toBe(50 - 17);
  });

  it('keeps string and number ids apart (1 is not "1")', () => {
    const inflight = new InflightRequests();
    const a = entry();
    inflight.add(1, a);
    expect(inflight.get('1')).toBeUndefined();
    expect(inflight.get(1)).toBe(a);
  });

  it('removes only the entry that finished when a client reuses an id', () => {
    const inflight = new InflightRequests();
    const first = entry();
    const second = entry();
    inflight.add(7, first);
    inflight.add(7, second);
    inflight.remove(first);
    expect(inflight.get(7)).toBe(second);
    inflight.remove(first); // twice: no effect
    expect(inflight.size).toBe(1);
  });

  it('aborts everything when the connection goes, once', () => {
    const inflight = new InflightRequests();
    const entries = [entry(), entry(), entry()];
    entries.forEach((e, i) => {
      inflight.add(i, e);
    });
    inflight.abortAll('gone');
    inflight.abortAll('again');
    expect(entries.map((e) => e.reasons)).toEqual([['gone'], ['gone'], ['gone']]);
    expect(inflight.size).toBe(0);
  });
});
