import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PublishedMenu } from '../../src/domain/published-menu.js';
import type { Services } from '../../src/services/index.js';
import { PublishedMenus } from '../../src/services/published-menus.js';
import { eventFrame, PublishedStream, type StreamEvent } from '../../src/services/published-stream.js';
import type { Change } from '../../src/store/store.js';
import { freshDatabase } from '../helpers/fresh-database.js';
import { SAMPLE_MENU, servicesOver } from '../helpers/runtime.js';

/**
 * A published menu patched after menu changes (PublishedMenus reads only the items the live feed
 * names, and publishes again only those and the items the specials now show otherwise) must be the
 * menu a fresh read makes, byte for byte, after every kind of change.
 */
describe('the published menu, patched after menu changes', () => {
  const database = freshDatabase('each');
  let services: Services;
  let dispensaryId: number;
  let now = Date.parse('2026-06-01T12:00:00Z');
  const clock = () => now;
  /** Change notices, delivered by hand as the change feed would. */
  const listeners = new Set<(change: Change) => void>();
  const feed = { subscribe: (listener: (change: Change) => void) => listeners.add(listener) };
  const notify = (kind: Change['kind']) => {
    for (const listener of listeners) listener({ seq: 0, kind, dispensaryId, subject: null });
  };

  beforeEach(async () => {
    services = await servicesOver(database.address);
    ({ id: dispensaryId } = await services.dispensaries.createWithStore('Patch Shop', {
      timezone: 'America/New_York',
    }));
    await services.dispensaries.update(dispensaryId, { published: true, slug: 'patch-shop' });
    const menu = SAMPLE_MENU.map((item) => ({ ...item, tags: item.id === 7 ? ['weekly'] : [] }));
    await services.menus.replace(dispensaryId, services.menus.validate(menu));
  });
  afterEach(async () => {
    listeners.clear();
    await services.store.close();
  });

  /** The menu a fresh PublishedMenus reads whole, now. */
  const readWhole = (): Promise<PublishedMenu> =>
    new PublishedMenus(services.store, { subscribe: () => () => {} }, clock).menu(dispensaryId);

  it('equals a whole read after item writes, stock, removals, specials and a boundary nobody recorded', async () => {
    const patched = new PublishedMenus(services.store, feed, clock);
    const whole = vi.spyOn(services.store.menus, 'readAt');
    const patches = vi.spyOn(services.store.menus, 'readChangedSince');
    expect(JSON.stringify(await patched.menu(dispensaryId))).toBe(JSON.stringify(await readWhole()));
    const steps: [string, () => Promise<unknown>][] = [
      [
        'a stock change',
        () => services.menus.setStock(dispensaryId, [{ item_id: 7, unit: 'gram', amount: 0.5, stock: 0 }]),
      ],
      ['an item changed', () => services.menus.patchItem(dispensaryId, 1, { name: 'Fudge Brownie XL' })],
      [
        'an item added',
        () =>
          services.menus.upsert(dispensaryId, [
            {
              id: 9,
              name: 'New Pre-Roll',
              product_type: 'Preroll',
              prices: [{ unit: 'unit', amount: 1, price: 8 }],
            },
          ]),
      ],
      ['an item removed', () => services.menus.deleteItem(dispensaryId, 9)],
      [
        'a special started by its write',
        () =>
          services.specials.create(dispensaryId, {
            name: 'Weekly',
            kind: 'percent_off',
            value: 10,
            applies_to: { tags: ['weekly'] },
            starts_at: '2026-06-01T11:00:00Z',
            ends_at: '2026-06-01T13:00:00Z',
          }),
      ],
      [
        'a special renamed (the feed names no item)',
        async () => {
          const [special] = await services.specials.list(dispensaryId);
          await services.specials.change(dispensaryId, special!.id, { name: 'Weekly deal' });
        },
      ],
      // The end passes with no boundary recorded, then any menu change: the prices must still follow.
      [
        'a boundary nobody recorded',
        async () => {
          now = Date.parse('2026-06-01T13:00:01Z');
          await services.menus.setStock(dispensaryId, [{ item_id: 1, unit: 'unit', amount: 1, stock: 3 }]);
        },
      ],
    ];
    for (const [step, write] of steps) {
      await write();
      notify('menu');
      const menu = await patched.menu(dispensaryId);
      expect(JSON.stringify(menu), step).toBe(JSON.stringify(await readWhole()));
    }
    // One whole read by the patched menus (the first) beside each fresh one; later, only what the feed named.
    expect(whole.mock.calls.filter(([id]) => id === dispensaryId).length).toBe(steps.length + 2);
    expect(patches).toHaveBeenCalledTimes(steps.length);
  });

  it('reads whole again after a change of the store, which the feed does not name', async () => {
    const patched = new PublishedMenus(services.store, feed, clock);
    await patched.menu(dispensaryId);
    await services.dispensaries.updateStoreInfo(dispensaryId, { phone: '555-0100' });
    notify('store');
    expect(JSON.stringify(await patched.menu(dispensaryId))).toBe(JSON.stringify(await readWhole()));
  });

  // An update's event text is made once, of its items' JSON (not serialized again for each follower).
  it('makes the public stream’s update events of the JSON its items have, byte for byte the serialized update', async () => {
    const stream = new PublishedStream(new PublishedMenus(services.store, feed));
    const events: StreamEvent[] = [];
    const stop = await stream.follow(dispensaryId, undefined, (event) => events.push(event));
    const next = async (write: () => Promise<unknown>, kind: Change['kind']) => {
      const before = events.length;
      await write();
      notify(kind);
      await expect.poll(() => events.length).toBeGreaterThan(before);
    };
    await next(() => services.menus.patchItem(dispensaryId, 1, { name: 'Fudge Brownie "XL"' }), 'menu');
    await next(() => services.menus.deleteItem(dispensaryId, 7), 'menu');
    await next(() => services.dispensaries.updateStoreInfo(dispensaryId, { phone: '555-0100' }), 'store');
    stop();
    const updates = events.filter((event) => event.type === 'update');
    expect(updates.map((event) => Object.keys(event.data))).toEqual([
      ['items', 'removed', 'updated_at'],
      ['items', 'removed', 'updated_at'],
      ['items', 'removed', 'store', 'updated_at'],
    ]);
    for (const event of updates) {
      expect(eventFrame(event)).toBe(
        `id: ${event.id}\nevent: update\ndata: ${JSON.stringify(event.data)}\n\n`,
      );
    }
  });
});
