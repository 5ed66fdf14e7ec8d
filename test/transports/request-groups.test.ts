import { describe, expect, it } from 'vitest';
import { MAX_WAITING_REQUESTS, REQUESTS_PER_GROUP, RequestGroups } from '../../src/transports/request-groups.js';

describe('RequestGroups', () => {
  it('hands requests over a group at a time, each group finished before the next starts', async () => {
    const log: string[] = [];
    const groups = new RequestGroups<number>(
      (n) => log.push(`handle ${n}`),
      () => log.push('group done'),
      () => {},
    );
    for (let n = 1; n <= 20; n++) groups.add(n);
    groups.start();
    expect(log).toEqual(Array.from({ length: REQUESTS_PER_GROUP }, (_, i) => `handle ${i + 1}`));
    await expect.poll(() => log.filter((l) => l.startsWith('handle')).length).toBe(20);
    expect(log.indexOf('group done')).toBe(REQUESTS_PER_GROUP); // right after the first group, before request 9
  });

  it('says when the backlog is over the limit, and when it has been worked off', async () => {
    const states: boolean[] = [];
    let handled = 0;
    const groups = new RequestGroups<number>(
      () => handled++,
      () => {},
      (full) => states.push(full),
    );
    for (let n = 0; n <= MAX_WAITING_REQUESTS; n++) groups.add(n);
    expect(states).toEqual([true]);
    groups.start();
    await expect.poll(() => handled, { timeout: 5_000 }).toBe(MAX_WAITING_REQUESTS + 1);
    expect(states).toEqual([true, false]);
  });

  it('handles everything at once when the input ends', () => {
    let handled = 0;
    const groups = new RequestGroups<number>(
      () => handled++,
      () => {},
      () => {},
    );
    for (let n = 0; n < 50; n++) groups.add(n);
    groups.finish();
    expect(handled).toBe(50);
  });
});
