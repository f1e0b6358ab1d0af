import { describe, expect, it } from 'vitest';
import { UsageCounter } from '../../src/services/usage.js';
import type { Store, UsageCount } from '../../src/store/store.js';

const HOUR = 60 * 60 * 1000;

/** A store whose usage table is an array (the counter's only use of the store). */
function fakeStore() {
  const added: UsageCount[] = [];
  const store = {
    usage: {
      add: async (counts: UsageCount[]) => {
        added.push(...counts);
      },
      since: async () => [],
    },
  } as unknown as Store;
  return { store, added };
}

describe('UsageCounter', () => {
  it('counts per credential and hour, across hour boundaries, in reads before a flush and in the flush', async () => {
    const { store, added } = fakeStore();
    const usage = new UsageCounter(store);
    const start = Date.UTC(2026, 10, 26, 13, 59, 59);
    usage.count('a', start);
    usage.count('a', start);
    usage.count('b', start);
    usage.count('a', start + 1_000); // 14:00:00, the next hour
    usage.count('a', start - HOUR); // late: an earlier hour
    const expected = [
      { hour: '2026-11-26T12:00:00.000Z', username: 'a', requests: 1 },
      { hour: '2026-11-26T13:00:00.000Z', username: 'a', requests: 2 },
      { hour: '2026-11-26T13:00:00.000Z', username: 'b', requests: 1 },
      { hour: '2026-11-26T14:00:00.000Z', username: 'a', requests: 1 },
    ];
    expect(await usage.list(24, { now: start + 2_000 })).toEqual(expected);
    // One credential's (an integrator's portal), since the start of the hour an hour ago.
    expect(await usage.list(1, { username: 'a', now: start + 2_000 })).toEqual([expected[1], expected[3]]);
    usage.count('b', start + 3_000);
    await usage.flush();
    const byKey = new Map<string, number>();
    for (const count of added) {
      const key = `${count.hour} ${count.username}`;
      byKey.set(key, (byKey.get(key) ?? 0) + count.requests);
    }
    expect(Object.fromEntries(byKey)).toEqual({
      '2026-11-26T12:00:00.000Z a': 1,
      '2026-11-26T13:00:00.000Z a': 2,
      '2026-11-26T13:00:00.000Z b': 1,
      '2026-11-26T14:00:00.000Z a': 1,
      '2026-11-26T14:00:00.000Z b': 1,
    });
  });
});
