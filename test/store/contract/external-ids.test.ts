import { describe, expect } from 'vitest';
import { ConflictError } from '../../../src/store/store.js';
import { DATABASE_KIND } from '../../helpers/database.js';
import { it, item } from './fixtures.js';

describe(`store.menus: one external_id per dispensary, on ${DATABASE_KIND}`, () => {
  it('two concurrent writers of the same external_id: one wins, the other changes nothing', async ({
    store,
  }) => {
    const shop = await store.dispensaries.create('Shop', 'digest-shop');
    const other = await store.dispensaries.create('Other', 'digest-other');
    await store.menus.replace(shop.id, [item(1, { externalId: 'pos-1' })]);
    // Nothing checked before: only the database can refuse the second.
    const outcomes = await Promise.allSettled([
      store.menus.upsertItems(shop.id, [item(null, { name: 'First', externalId: 'pos-2' })]),
      store.menus.upsertItems(shop.id, [item(null, { name: 'Second', externalId: 'pos-2' })]),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ConflictError);
    const menu = await store.menus.read(shop.id);
    expect(menu.map((entry) => entry.externalId)).toEqual(['pos-1', 'pos-2']);
    // Another stored item taking one is refused too; "" (none) is not an external_id, and another
    // dispensary has its own.
    await expect(store.menus.upsertItems(shop.id, [item(5, { externalId: 'pos-1' })])).rejects.toBeInstanceOf(
      ConflictError,
    );
    await store.menus.upsertItems(shop.id, [item(6, { externalId: '' }), item(7, { externalId: '' })]);
    await store.menus.replace(other.id, [item(1, { externalId: 'pos-1' })]);
    expect(await store.menus.read(shop.id)).toHaveLength(4);
    expect(await store.menus.idsByExternalId(shop.id, ['pos-2', 'pos-9', ''])).toEqual(
      new Map([['pos-2', menu[1]!.id]]),
    );
  });

  it('a full sync that removes an item and gives its external_id to another takes it at once', async ({
    store,
  }) => {
    const shop = await store.dispensaries.create('Shop', 'digest-shop');
    await store.menus.replace(shop.id, [item(1, { externalId: 'pos-1' })]);
    // Item 1 leaves the menu and item 2 takes its external_id in the same write: the removal goes first.
    await store.menus.replace(shop.id, [item(2, { externalId: 'pos-1' })]);
    expect((await store.menus.read(shop.id)).map((entry) => [entry.id, entry.externalId])).toEqual([
      [2, 'pos-1'],
    ]);
  });

  it('a full sync swaps external_ids between items, and moves one from an item written after the taker', async ({
    store,
  }) => {
    const shop = await store.dispensaries.create('Shop', 'digest-shop');
    // More items than one statement writes (rewriteItems): the last item is written in a later slice.
    const count = 600;
    const menu = Array.from({ length: count }, (_, index) =>
      item(index + 1, { externalId: `pos-${index + 1}` }),
    );
    await store.menus.replace(shop.id, menu);
    // Items 1 and 2 swap theirs; item 3 takes the last item's, which takes a new one.
    const moved = menu.map((entry) => ({ ...entry }));
    moved[0]!.externalId = 'pos-2';
    moved[1]!.externalId = 'pos-1';
    moved[2]!.externalId = `pos-${count}`;
    moved[count - 1]!.externalId = 'pos-new';
    await store.menus.replace(shop.id, moved);
    const read = await store.menus.read(shop.id);
    expect(read.map((entry) => entry.externalId)).toEqual(moved.map((entry) => entry.externalId));
  });
});
