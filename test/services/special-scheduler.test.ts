import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Services } from '../../src/services/index.js';
import { SpecialScheduler } from '../../src/services/special-scheduler.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { freshDatabase } from '../helpers/fresh-database.js';
import { onPostgres, SAMPLE_MENU, servicesOver } from '../helpers/runtime.js';

/** A clock the test moves by hand. */
function fakeClock(start: string) {
  let now = Date.parse(start);
  return {
    now: () => now,
    set: (iso: string) => {
      now = Date.parse(iso);
    },
  };
}

describe('special boundaries recorded in the live feed, with a fake clock', () => {
  const database = freshDatabase('each');
  let services: Services;
  /** A second process's store over the same database. */
  let otherStore: Store;
  let dispensaryId: number;

  beforeEach(async () => {
    services = await servicesOver(database.address);
    otherStore = await openStore(database.address);
    const created = await services.dispensaries.createWithStore('Night Owl', {
      timezone: 'America/New_York',
    });
    dispensaryId = created.id;
    await services.menus.replace(dispensaryId, services.menus.validate(SAMPLE_MENU));
  });
  afterEach(async () => {
    await otherStore.close();
    await services.store.close();
  });

  /** The feed's changes after `after`, as [type, item id]. */
  const changesAfter = async (after: number) =>
    (await services.store.menuChanges.since(after, 100)).map((change) => [change.type, change.itemId]);

  /**
   * A scheduler on a clock set to `start`, and a special every night from 01:30 to 02:30 in New York
   * with `deal`; `head` is the feed's head once the special is made.
   */
  const nightOwl = async (start: string, deal: Record<string, unknown>) => {
    const clock = fakeClock(start);
    const scheduler = new SpecialScheduler(services.store, undefined, async () => {}, { now: clock.now });
    await services.specials.create(dispensaryId, {
      name: 'Night owl',
      ...deal,
      daily_start: '01:30',
      daily_end: '02:30',
    });
    return { clock, scheduler, head: await services.store.menuChanges.head() };
  };

  it('a daily window on a spring-forward day: recorded at 01:30 EST and at 03:30 EDT, each once', async () => {
    const { clock, scheduler, head } = await nightOwl('2026-03-08T06:00:00Z', {
      kind: 'amount_off',
      value: 2,
      applies_to: { brands: ['emerald farms'] },
    });
    expect(await scheduler.run()).toBe(0);

    clock.set('2026-03-08T06:29:59.999Z');
    expect(await scheduler.run()).toBe(0);
    expect(await changesAfter(head)).toEqual([]);

    clock.set('2026-03-08T06:30:00.000Z');
    expect(await scheduler.run()).toBe(1);
    expect(await changesAfter(head)).toEqual([['item.upserted', 3]]);
    // Run again at the same instant: nothing new.
    expect(await scheduler.run()).toBe(0);

    // 02:30 does not happen that night: the window ends an hour after it began, at 03:30 EDT.
    clock.set('2026-03-08T07:29:00Z');
    expect(await scheduler.run()).toBe(0);
    clock.set('2026-03-08T07:30:00.500Z');
    expect(await scheduler.run()).toBe(1);
    expect(await changesAfter(head)).toEqual([
      ['item.upserted', 3],
      ['item.upserted', 3],
    ]);
    const audit = await services.audit.list({ limit: 2 });
    expect(audit.map((entry) => [entry.action, entry.actor, entry.detail])).toEqual([
      ['special.boundary', 'specials-scheduler', { at: '2026-03-08T06:30:00.000Z', items: 1 }],
      ['special.boundary', 'specials-scheduler', { at: '2026-03-08T07:30:00.000Z', items: 1 }],
    ]);
  });

  it('a fall-back day: the window runs on through the repeated hour, one start and one end', async () => {
    const { clock, scheduler, head } = await nightOwl('2026-11-01T05:00:00Z', {
      kind: 'percent_off',
      value: 50,
      applies_to: { item_ids: [1, 7] },
    });
    // One run across the whole night: each boundary recorded, in order.
    clock.set('2026-11-01T12:00:00Z');
    expect(await scheduler.run()).toBe(2);
    const boundaries = (await services.audit.list({ limit: 2 })).map((entry) => entry.detail.at);
    expect(boundaries).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-01T07:30:00.000Z']);
    expect(await changesAfter(head)).toEqual([
      ['item.upserted', 1],
      ['item.upserted', 7],
      ['item.upserted', 1],
      ['item.upserted', 7],
    ]);
  });

  it('a boundary reprices the active items its specials target (tag, external id, medical price), no others', async () => {
    const entry = (price: number, med_price: number | null) => ({
      unit: 'gram',
      amount: 1,
      price,
      med_price,
    });
    await services.menus.replace(
      dispensaryId,
      services.menus.validate([
        { id: 1, name: 'Tagged', product_type: 'Flower', tags: [' Weekly'], prices: [entry(10, 9)] },
        {
          id: 2,
          name: 'Tagged, hidden',
          product_type: 'Flower',
          active: false,
          tags: ['weekly'],
          prices: [entry(10, 9)],
        },
        { id: 3, name: 'Medical', product_type: 'Vape', external_id: 'pos-3', prices: [entry(30, 25)] },
        {
          id: 4,
          name: 'No medical price',
          product_type: 'Vape',
          external_id: 'pos-4',
          prices: [entry(30, null)],
        },
        { id: 5, name: 'Untargeted', product_type: 'Edible', tags: ['daily'], prices: [entry(5, 4)] },
        { id: 6, name: 'Tagged, no prices', product_type: 'Edible', tags: ['weekly'], prices: [] },
      ]),
    );
    const { clock, scheduler } = await nightOwl('2026-07-01T05:00:00Z', {
      kind: 'percent_off',
      value: 10,
      applies_to: { tags: ['weekly'] },
    });
    await services.specials.create(dispensaryId, {
      name: 'Medical night owl',
      kind: 'amount_off',
      value: 1,
      menu_type: 'med',
      applies_to: { external_ids: ['pos-3', 'pos-4'] },
      daily_start: '01:30',
      daily_end: '02:30',
    });
    const head = await services.store.menuChanges.head();
    clock.set('2026-07-01T05:30:00Z');
    expect(await scheduler.run()).toBe(1);
    expect(await changesAfter(head)).toEqual([
      ['item.upserted', 1],
      ['item.upserted', 3],
    ]);
  });

  it('a boundary of more targeted items than one statement binds prices each with its own entries', async () => {
    // 1,300 targeted items: on SQLite their entries are read in slices of 1,000 ids. A price of 0 is
    // not lowered by a percentage, so only the targeted items with a price are repriced.
    const menu = Array.from({ length: 2_600 }, (_, index) => {
      const id = index + 1;
      return {
        id,
        name: `Item ${id}`,
        product_type: 'Flower',
        tags: id % 2 === 1 ? ['weekly'] : [],
        prices: [{ unit: 'gram', amount: 1, price: id % 3 === 0 ? 0 : 10 }],
      };
    });
    await services.menus.replace(dispensaryId, services.menus.validate(menu));
    const { clock, scheduler } = await nightOwl('2026-07-01T05:00:00Z', {
      kind: 'percent_off',
      value: 10,
      applies_to: { tags: ['weekly'] },
    });
    const head = await services.store.menuChanges.head();
    clock.set('2026-07-01T05:30:00Z');
    expect(await scheduler.run()).toBe(1);
    const repriced = (await services.store.menuChanges.since(head, 5_000)).map((change) => change.itemId);
    expect(repriced).toEqual(menu.map((item) => item.id).filter((id) => id % 2 === 1 && id % 3 !== 0));
  });

  it('two processes at the same boundary record it once', async () => {
    const clock = fakeClock('2026-07-01T19:59:00Z');
    const schedulers = [services.store, otherStore].map(
      (store) => new SpecialScheduler(store, undefined, async () => {}, { now: clock.now }),
    );
    await services.specials.create(dispensaryId, {
      name: 'Happy hour',
      kind: 'fixed_price',
      value: 5,
      applies_to: { product_types: ['Flower', 'Edible', 'Vape'] },
      daily_start: '16:00',
      daily_end: '18:00',
    });
    const head = await services.store.menuChanges.head();
    clock.set('2026-07-01T20:00:00.010Z');
    // On PostgreSQL at once. Two SQLite connections of one thread cannot both hold a transaction open
    // (better-sqlite3 waits for the lock synchronously, so the first can never finish): one after the
    // other there, as two processes' turns at the file's write lock.
    const recorded = onPostgres
      ? await Promise.all(schedulers.map((scheduler) => scheduler.run()))
      : [await schedulers[0]!.run(), await schedulers[1]!.run()];
    expect(recorded.sort()).toEqual([0, 1]);
    expect(await changesAfter(head)).toEqual([
      ['item.upserted', 1],
      ['item.upserted', 3],
      ['item.upserted', 7],
    ]);
  });

  it('a boundary read ahead records its items as they are at the boundary, read again after a change', async () => {
    await services.specials.create(dispensaryId, {
      name: 'Happy hour',
      kind: 'percent_off',
      value: 50,
      applies_to: { item_ids: [1, 7] },
      daily_start: '16:00',
      daily_end: '18:00',
    });
    const specials = services.store.specials;
    const items = async (after: number) =>
      (await services.store.menuChanges.since(after, 100)).map((change) => {
        const item = JSON.parse(change.item!) as { id: number; name: string };
        return [item.id, item.name];
      });
    // Nothing changed after reading ahead: what was read is recorded.
    const start = '2026-07-01T20:00:00.000Z';
    const quiet = await specials.prepareBoundary(dispensaryId, start);
    expect(quiet?.items.map((item) => item.id)).toEqual([1, 7]);
    let head = await services.store.menuChanges.head();
    expect(await specials.recordBoundary(dispensaryId, start, undefined, quiet)).toBe(2);
    expect((await items(head)).map(([id]) => id)).toEqual([1, 7]);
    // An item renamed after reading ahead: the boundary records it as it is then.
    const end = '2026-07-01T22:00:00.000Z';
    const early = await specials.prepareBoundary(dispensaryId, end);
    await services.menus.patchItem(dispensaryId, 7, { name: 'Renamed before the end' });
    head = await services.store.menuChanges.head();
    expect(await specials.recordBoundary(dispensaryId, end, undefined, early)).toBe(2);
    expect((await items(head)).find(([id]) => id === 7)).toEqual([7, 'Renamed before the end']);
  });

  it('a started scheduler reads its next boundary ahead and records what it read', async () => {
    // On the real clock: a special starting within a few seconds, read ahead as soon as it is planned.
    const startsAt = Math.ceil((Date.now() + 1_500) / 1_000) * 1_000;
    await services.specials.create(dispensaryId, {
      name: 'Soon',
      kind: 'percent_off',
      value: 10,
      applies_to: { item_ids: [1] },
      starts_at: new Date(startsAt).toISOString(),
      ends_at: new Date(startsAt + 3_600_000).toISOString(),
    });
    const head = await services.store.menuChanges.head();
    const prepare = vi.spyOn(services.store.specials, 'prepareBoundary');
    const record = vi.spyOn(services.store.specials, 'recordBoundary');
    const scheduler = new SpecialScheduler(services.store, undefined, async () => {}, {
      prepareAheadMs: 60_000,
    });
    scheduler.start();
    try {
      await expect
        .poll(() => changesAfter(head), { timeout: 15_000, interval: 100 })
        .toEqual([['item.upserted', 1]]);
    } finally {
      scheduler.stop();
    }
    const at = new Date(startsAt).toISOString();
    expect(prepare.mock.calls).toEqual([[dispensaryId, at]]);
    const prepared = record.mock.calls[0]?.[3];
    expect(prepared).toBe(await prepare.mock.results[0]?.value);
    expect(prepared?.items.map((item) => item.id)).toEqual([1]);
  });
});
