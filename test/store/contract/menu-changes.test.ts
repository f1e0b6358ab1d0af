import fc from 'fast-check';
import { describe, expect, it as plainIt } from 'vitest';
import { toCanonicalRecord } from '../../../src/domain/canonical.js';
import type { MenuItem } from '../../../src/domain/item.js';
import { patchMenu } from '../../../src/domain/menu-patch.js';
import { INACTIVE_ITEMS_CHANGED, type MenuChange, type Store } from '../../../src/store/store.js';
import { priceEntry } from '../../domain/item-builder.js';
import { DATABASE_KIND } from '../../helpers/database.js';
import { continueFeedAfter } from '../../helpers/feed-sequence.js';
import { it, item, lastChanges, storesOnOneDatabase, writeFromTwoStores } from './fixtures.js';

/** The feed of a dispensary after `after`, as [type, item id, reason]. */
async function feedOf(store: Store, dispensaryId: number, after = 0) {
  const { changes } = await store.menuChanges.page(dispensaryId, after, 1_000);
  return changes.map((change) => [change.type, change.itemId, change.reason]);
}

const canonical = (menuItem: MenuItem) => JSON.parse(JSON.stringify(toCanonicalRecord(menuItem)));

describe(`a menu brought up to date from the feed on ${DATABASE_KIND}`, () => {
  it('readPatchSince reads what a whole read would, inactive items included; notices say when one changed', async ({
    store,
  }) => {
    const { id } = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(id, [item(1), item(2, { active: false }), item(3, { active: false }), item(4)]);
    const base = await store.menus.readAt(id);
    const seq = await store.changes.lastSeq();
    const entry = { unit: 'gram' as const, amount: 1 };
    // An active item's stock (in the feed), then silent changes: an inactive item's stock, rename and delete.
    await store.menus.setStock(id, [{ itemId: 1, ...entry, stock: 3 }]);
    await store.menus.setStock(id, [{ itemId: 2, ...entry, stock: 5 }]);
    await store.menus.upsertItems(id, [item(3, { active: false, name: 'Renamed' })]);
    await store.menus.deleteItem(id, 3);
    await store.menus.upsertItems(id, [item(5, { active: false })]);
    await store.menus.setItemActive(id, 4, false);
    expect((await lastChanges(store, seq)).map(([, , subject]) => subject)).toEqual([
      null,
      INACTIVE_ITEMS_CHANGED,
      INACTIVE_ITEMS_CHANGED,
      INACTIVE_ITEMS_CHANGED,
      INACTIVE_ITEMS_CHANGED,
      null,
    ]);
    const patch = (await store.menus.readPatchSince(id, base.cursor))!;
    expect(patch.itemIds).toEqual([1, 4]);
    expect(patch.inactive.map((entry) => entry.id)).toEqual([2, 4, 5]);
    expect(patch.cursor).toBe(await store.menuChanges.head());
    expect(patchMenu(base.items, patch)).toEqual(await store.menus.read(id));
    // Without the inactive items, only what the feed names.
    expect(patchMenu(base.items, (await store.menus.readChangedSince(id, base.cursor))!)).not.toEqual(
      await store.menus.read(id),
    );
  });
});

describe(`the live menu feed on ${DATABASE_KIND}`, () => {
  it('a full sync records exactly the items that entered, changed in or left the active menu', async ({
    store,
  }) => {
    const { id } = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(id, [item(1), item(2), item(3, { active: false })]);
    expect(await feedOf(store, id)).toEqual([
      ['item.upserted', 1, null],
      ['item.upserted', 2, null],
    ]);
    let head = await store.menuChanges.head();

    // 1 unchanged, 2 repriced, 3 changed but still inactive, 4 new, 5 new and inactive.
    await store.menus.replace(id, [
      item(1),
      item(2, {
        prices: [priceEntry({ unit: 'gram', amount: 1, priceCents: 1200, stock: null })],
      }),
      item(3, { active: false, name: 'Renamed' }),
      item(4),
      item(5, { active: false }),
    ]);
    expect(await feedOf(store, id, head)).toEqual([
      ['item.upserted', 2, null],
      ['item.upserted', 4, null],
    ]);
    const { changes } = await store.menuChanges.page(id, head, 10);
    const menu = await store.menus.read(id);
    expect(JSON.parse(changes[0]!.item!)).toEqual(canonical(menu.find((entry) => entry.id === 2)!));
    head = await store.menuChanges.head();

    // 1 removed, 2 deactivated, 3 activated, 4 and 5 unchanged.
    await store.menus.replace(id, [
      item(2, {
        active: false,
        prices: [priceEntry({ unit: 'gram', amount: 1, priceCents: 1200, stock: null })],
      }),
      item(3, { name: 'Renamed' }),
      item(4),
      item(5, { active: false }),
    ]);
    expect(await feedOf(store, id, head)).toEqual([
      ['item.removed', 1, 'deleted'],
      ['item.removed', 2, 'deactivated'],
      ['item.upserted', 3, null],
    ]);
    const removed = (await store.menuChanges.page(id, head, 10)).changes[0]!;
    expect(removed.item).toBeNull();
  });

  it('a change carries its item’s canonical JSON text exactly, whatever characters and numbers it holds', async ({
    store,
  }) => {
    const { id } = await store.dispensaries.create('A', 'digest-a');
    // JSON escapes, array-literal and SQL metacharacters, a non-BMP letter, the JS-only line separator,
    // and the record separator (PostgreSQL's feed insert splits its items at one: JSON escapes it).
    const text = 'say "hi" \\ back\\slash {a,b} NULL \'q\' tab\tline\nend 😀 Ünïcödé \u2028 ½ \u001e';
    const odd = { name: text, description: text, flavors: [text, ''], thc: 0.1 + 0.2, cbd: 1e-7 };
    await store.menus.replace(id, [item(1, odd), item(2, { active: false }), item(3)]);
    let head = await store.menuChanges.head();
    await store.menus.setStock(id, [
      { itemId: 1, unit: 'gram', amount: 1, stock: 2.5 },
      { itemId: 3, unit: 'gram', amount: 1, stock: 0 },
    ]);
    const exact = async () =>
      (await store.menus.read(id))
        .filter((entry) => entry.active)
        .map((entry) => JSON.stringify(toCanonicalRecord(entry)));
    const stock = (await store.menuChanges.page(id, head, 10)).changes;
    expect(stock.map((change) => change.item)).toEqual(await exact());
    head = await store.menuChanges.head();
    // One write of removals (no item) between upserts: each entry keeps its own item, or none.
    await store.menus.replace(id, [item(2, odd), item(3, { ...odd, name: 'Three' })]);
    const sync = (await store.menuChanges.page(id, head, 10)).changes;
    expect(sync.map((change) => [change.type, change.itemId, change.item])).toEqual([
      ['item.removed', 1, null],
      ...(await exact()).map((json, index) => ['item.upserted', index + 2, json]),
    ]);
  });

  it('a stock batch records each changed item as the canonical JSON of the item read back, for any items and edits', async ({
    store,
  }) => {
    const { id } = await store.dispensaries.create('A', 'digest-a');
    // Values of every kind the item schema has: escapes and odd letters, decimals, tiny and large
    // numbers, nulls, empty and repeated lists, inactive items, entries with and without stock.
    // PostgreSQL text holds no NUL (the validator refuses it before the store sees it).
    const text = fc.string({ unit: 'grapheme', maxLength: 12 }).map((value) => value.replaceAll('\0', ''));
    const amount = fc.constantFrom(1, 0.125, 3.5, 1e-7, 0.1 + 0.2, 28, 1_000_000);
    const items = fc.uniqueArray(
      fc.record({
        id: fc.integer({ min: 1, max: 40 }),
        name: text.map((value) => `n${value}`),
        description: text,
        image: fc.option(text.map((value) => `https://example.com/${value}`)),
        cbd: fc.option(fc.constantFrom(0, 0.1, 99.99, 1e-7)),
        totalThc: fc.option(fc.double({ min: 0, max: 1_000_000, noNaN: true })),
        flavors: fc.array(
          text.map((value) => `f${value}`),
          { maxLength: 3 },
        ),
        active: fc.boolean(),
        prices: fc.uniqueArray(
          fc.record({
            unit: fc.constantFrom('gram' as const, 'ounce' as const, 'unit' as const),
            amount,
            priceCents: fc.integer({ min: 0, max: 100_000_000_00 }),
            stock: fc.option(fc.double({ min: 0, max: 1_000_000_000, noNaN: true })),
            label: fc.constant(''),
            medPriceCents: fc.constant(null),
            sku: fc.constant(''),
            barcode: fc.constant(''),
          }),
          { minLength: 1, maxLength: 3, selector: (price) => `${price.unit}|${price.amount}` },
        ),
      }),
      { minLength: 1, maxLength: 6, selector: (entry) => entry.id },
    );
    // Before the batch: items switched on or off one by one, and items whose kept JSON (fields_json)
    // is missing, as before its migration, or written for another version of the field list.
    const edits = fc.array(
      fc.record({ pick: fc.nat(), kind: fc.constantFrom('switch', 'missing', 'other version') }),
      { maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(items, fc.integer({ min: 0, max: 99 }), edits, async (drawn, level, changes) => {
        await store.menus.replace(
          id,
          drawn.map((entry) => item(entry.id, { ...entry, image: entry.image })),
        );
        const active = new Map(drawn.map((entry) => [entry.id, entry.active]));
        for (const { pick, kind } of changes) {
          const itemId = drawn[pick % drawn.length]!.id;
          if (kind === 'switch') {
            active.set(itemId, !active.get(itemId));
            await store.menus.setItemActive(id, itemId, active.get(itemId)!);
            continue;
          }
          await store.database
            .updateTable('items')
            .set({ fields_json: kind === 'missing' ? null : '00000000{"id":0,"name":"stale"}' })
            .where('dispensary_id', '=', id)
            .where('id', '=', itemId)
            .execute();
        }
        const head = await store.menuChanges.head();
        await store.menus.setStock(
          id,
          drawn.flatMap((entry) =>
            entry.prices.map((price) => ({
              itemId: entry.id,
              unit: price.unit,
              amount: price.amount,
              // Every level moves, so every active item is in the feed.
              stock: (price.stock ?? level) + 1,
            })),
          ),
        );
        const stock = (await store.menuChanges.page(id, head, 100)).changes;
        const exact = (await store.menus.read(id))
          .filter((entry) => entry.active)
          .map((entry) => JSON.stringify(toCanonicalRecord(entry)));
        expect(stock.map((change) => change.item)).toEqual(exact);
      }),
      { numRuns: 25 },
    );
  });

  it('an identical sync records no change and rewrites nothing', async ({ store }) => {
    const { id } = await store.dispensaries.create('A', 'digest-a');
    const menu = [item(1), item(2, { active: false }), item(3, { flavors: ['Pine', 'Lemon'] })];
    await store.menus.replace(id, menu);
    const times = async () =>
      (await store.database.selectFrom('items').select(['id', 'updated_at']).orderBy('id').execute()).map(
        (row) => row.updated_at,
      );
    const before = await times();
    const read = await store.menus.read(id);
    const feedHead = await store.menuChanges.head();
    const seq = await store.changes.lastSeq();
    await new Promise((resolve) => setTimeout(resolve, 5));

    await store.menus.replace(id, menu);
    await store.menus.upsertItems(id, [item(3, { flavors: ['Pine', 'Lemon'] })]);

    expect(await store.menuChanges.head()).toBe(feedHead);
    expect(await store.changes.lastSeq()).toBe(seq);
    expect(await times()).toEqual(before);
    expect(await store.menus.read(id)).toEqual(read);
    // Still audited: the sync happened.
    const [last] = await store.audit.list({ limit: 1 });
    expect(last).toMatchObject({ action: 'menu.upsert' });
  });

  it('each kind of write records its own entries', async ({ store }) => {
    const { id } = await store.dispensaries.create('A', 'digest-a');
    const prices = [
      priceEntry({ unit: 'gram' as const, amount: 1, priceCents: 1000, stock: 5 }),
      priceEntry({ unit: 'gram' as const, amount: 3.5, priceCents: 3000, stock: 5 }),
    ];
    await store.menus.replace(id, [
      item(1, { prices }),
      item(2, { prices }),
      item(3, { active: false, prices }),
    ]);
    let head = await store.menuChanges.head();
    const since = async () => {
      const entries = await feedOf(store, id, head);
      head = await store.menuChanges.head();
      return entries;
    };

    // Partial upsert: a changed item, an unchanged one, a new one.
    await store.menus.upsertItems(id, [
      item(1, { prices, name: 'New name' }),
      item(2, { prices }),
      item(null),
    ]);
    expect(await since()).toEqual([
      ['item.upserted', 1, null],
      ['item.upserted', 4, null],
    ]);

    // Stock: two entries of item 1 change (one entry), item 2's level is set to what it is (none),
    // inactive item 3 changes silently.
    await store.menus.setStock(id, [
      { itemId: 1, unit: 'gram', amount: 1, stock: 4 },
      { itemId: 1, unit: 'gram', amount: 3.5, stock: 0 },
      { itemId: 2, unit: 'gram', amount: 1, stock: 5 },
      { itemId: 3, unit: 'gram', amount: 1, stock: 0 },
    ]);
    const [stock] = (await store.menuChanges.page(id, head, 10)).changes;
    expect(await since()).toEqual([['item.upserted', 1, null]]);
    const one = (await store.menus.read(id)).find((entry) => entry.id === 1)!;
    expect(JSON.parse(stock!.item!)).toEqual(canonical(one));
    expect(one.prices.map((price) => price.stock)).toEqual([4, 0]);

    // Deactivate, deactivate again (nothing), reactivate.
    await store.menus.setItemActive(id, 2, false);
    await store.menus.setItemActive(id, 2, false);
    await store.menus.setItemActive(id, 2, true);
    expect(await since()).toEqual([
      ['item.removed', 2, 'deactivated'],
      ['item.upserted', 2, null],
    ]);

    // Delete an active item, then an inactive one (which was not in the active menu).
    expect(await store.menus.deleteItem(id, 1)).toBe(true);
    expect(await store.menus.deleteItem(id, 3)).toBe(true);
    expect(await since()).toEqual([['item.removed', 1, 'deleted']]);

    // Store information: a real change, then the same values again.
    await store.dispensaries.updateStoreInfo(id, { city: 'Denver' });
    await store.dispensaries.updateStoreInfo(id, { city: 'Denver' });
    expect(await since()).toEqual([['store.updated', null, null]]);
  });

  it('pages a dispensary after a cursor, with the head and the oldest kept change', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const b = await store.dispensaries.create('B', 'digest-b');
    await store.menus.replace(a.id, [item(1), item(2), item(3)]);
    await store.menus.replace(b.id, [item(1)]);
    await store.menus.setItemActive(a.id, 2, false);

    const first = await store.menuChanges.page(a.id, 0, 2);
    expect(first.changes.map((change) => change.seq)).toEqual([1, 2]);
    expect(first.head).toBe(5);
    expect(first.oldest).toBe(1);
    const rest = await store.menuChanges.page(a.id, 2, 2);
    expect(rest.changes.map((change) => [change.seq, change.dispensaryId, change.itemId])).toEqual([
      [3, a.id, 3],
      [5, a.id, 2],
    ]);
    expect((await store.menuChanges.page(b.id, 0, 10)).changes.map((change) => change.seq)).toEqual([4]);
    expect((await store.menuChanges.since(3, 10)).map((change) => change.seq)).toEqual([4, 5]);
    expect(rest.changes[0]).toMatchObject({ type: 'item.upserted', reason: null });
    expect(typeof rest.changes[0]!.at).toBe('string');
  });

  it('prunes old changes in batches, always keeping the newest', async ({ store }) => {
    const { id } = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(id, [item(1), item(2), item(3), item(4), item(5)]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await store.menuChanges.prune(new Date(0).toISOString(), 2)).toBe(0);
    expect(await store.menuChanges.prune(future, 2)).toBe(4);
    const page = await store.menuChanges.page(id, 0, 10);
    expect(page.changes.map((change) => change.seq)).toEqual([5]);
    expect(page.oldest).toBe(5);
    expect(page.head).toBe(5);
  });

  it('numbers changes up to 2^53 - 1, read back exactly, and no further: a write past it fails whole', async ({
    store,
  }) => {
    const last = Number.MAX_SAFE_INTEGER;
    const { id } = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(id, [item(1), item(2)]);
    await continueFeedAfter(store.database, last - 2);
    await store.menus.setItemActive(id, 1, false);
    const before = await store.menus.read(id);

    // Two changes in one write: the first would be numbered 2^53 - 1, the second 2^53.
    await expect(store.menus.replace(id, [item(1), item(2, { name: 'Renamed' })])).rejects.toThrow();
    expect(await store.menus.read(id)).toEqual(before);
    expect(await store.menuChanges.head()).toBe(last - 1);

    // PostgreSQL keeps the numbers a failed write drew (sequences are not transactional): give it back.
    await continueFeedAfter(store.database, last - 1);
    await store.menus.setItemActive(id, 1, true);
    const page = await store.menuChanges.page(id, last - 2, 10);
    expect(page.changes.map((change) => [change.seq, change.type, change.itemId])).toEqual([
      [last - 1, 'item.removed', 1],
      [last, 'item.upserted', 1],
    ]);
    expect(page.head).toBe(last);
    expect(await store.menuChanges.head()).toBe(last);
    expect((await store.menuChanges.since(last - 1, 10)).map((change) => change.seq)).toEqual([last]);
    expect((await store.menuChanges.page(id, last, 10)).changes).toEqual([]);

    // Nothing more can be numbered, nor a row be given a number past the end (as db copy gives them).
    await expect(store.menus.setItemActive(id, 2, false)).rejects.toThrow();
    await expect(
      store.database
        .insertInto('menu_changes')
        .values({ seq: last + 1, dispensary_id: id, at: new Date().toISOString(), type: 'store.updated' })
        .execute(),
    ).rejects.toThrow();
    expect(await store.menuChanges.head()).toBe(last);
    expect((await store.menus.read(id)).find((entry) => entry.id === 2)!.active).toBe(true);
  });

  it('runs afterFeed hooks in the write, with the rows; a failing hook undoes the write', async ({
    store,
  }) => {
    const seen: MenuChange[][] = [];
    let fail = false;
    store.afterFeed(async (trx, rows) => {
      // The rows are there, in this transaction.
      const count = await trx
        .selectFrom('menu_changes')
        .select(({ fn }) => fn.countAll<number>().as('n'))
        .where(
          'seq',
          'in',
          rows.map((row) => row.seq),
        )
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(rows.length);
      seen.push([...rows]);
      if (fail) throw new Error('hook failed');
    });
    const { id } = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(id, [item(1), item(2)]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.map((row) => [row.seq, row.dispensaryId, row.type, row.itemId, row.reason])).toEqual([
      [1, id, 'item.upserted', 1, null],
      [2, id, 'item.upserted', 2, null],
    ]);
    expect(JSON.parse(seen[0]![0]!.item!)).toMatchObject({ id: 1, name: 'Item 1' });
    fail = true;
    await expect(store.menus.setItemActive(id, 1, false)).rejects.toThrow('hook failed');
    expect((await store.menus.read(id))[0]!.active).toBe(true);
    expect(await store.menuChanges.head()).toBe(2);
  });
});

describe(`the live menu feed between stores on ${DATABASE_KIND}`, () => {
  const stores = storesOnOneDatabase();

  plainIt(
    'the items changed after a cursor, asked again, include what another store wrote since',
    async () => {
      const { writers, reader } = stores;
      const { id } = await writers[0]!.dispensaries.create('Changed', 'digest-changed');
      const entry = priceEntry({ unit: 'gram', amount: 1, priceCents: 100, stock: 0 });
      await writers[0]!.menus.replace(id, [item(1, { prices: [entry] }), item(2, { prices: [entry] })]);
      const cursor = await reader.menuChanges.head();
      await writers[0]!.menus.setStock(id, [{ itemId: 1, unit: 'gram', amount: 1, stock: 5 }]);
      const first = await reader.menus.readChangedSince(id, cursor);
      expect(first?.itemIds).toEqual([1]);
      // Asked again with nothing new: the same answer (every snapshot patching from that cursor shares it).
      expect(await reader.menus.readChangedSince(id, cursor)).toBe(first);
      await writers[1]!.menus.setStock(id, [{ itemId: 2, unit: 'gram', amount: 1, stock: 7 }]);
      const second = await reader.menus.readChangedSince(id, cursor);
      expect(second?.itemIds).toEqual([1, 2]);
      expect(second?.items.map((changed) => changed.prices[0]!.stock)).toEqual([5, 7]);
      expect(second?.cursor).toBe(await reader.menuChanges.head());
    },
  );

  plainIt('a reader following after its cursor during concurrent writes never misses a change', async () => {
    const { writers, reader } = stores;
    const ids = [
      (await writers[0]!.dispensaries.create('A', 'digest-a')).id,
      (await writers[1]!.dispensaries.create('B', 'digest-b')).id,
    ];
    const menu = Array.from({ length: 5 }, (_, index) =>
      item(index + 1, {
        prices: [priceEntry({ unit: 'gram', amount: 1, priceCents: 100, stock: 0 })],
      }),
    );
    for (const [index, id] of ids.entries()) await writers[index]!.menus.replace(id, menu);
    const seen: number[] = [];
    let cursor = await reader.menuChanges.head();
    const start = cursor;
    let writing = true;
    const follow = async () => {
      for (const change of await reader.menuChanges.since(cursor, 1_000)) {
        seen.push(change.seq);
        cursor = change.seq;
      }
    };
    const following = (async () => {
      while (writing) await follow();
    })();
    const write = (index: number, n: number) =>
      writers[index]!.menus.setStock(ids[index]!, [
        { itemId: (n % 5) + 1, unit: 'gram', amount: 1, stock: n + 1 },
        { itemId: ((n + 1) % 5) + 1, unit: 'gram', amount: 1, stock: n + 1 },
      ]);
    try {
      await writeFromTwoStores(write);
    } finally {
      writing = false;
      await following;
    }
    await follow();
    const all = (await reader.menuChanges.since(start, 10_000)).map((change) => change.seq);
    expect(all).toHaveLength(100);
    // Each seen once, in order, none skipped even when commits raced.
    expect(seen).toEqual(all);
  });
});
